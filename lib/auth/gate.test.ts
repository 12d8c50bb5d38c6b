import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { LARGE_BODY_ROUTES } from "./gate";

const root = path.resolve(import.meta.dirname, "..", "..");

describe("the large-body routes", () => {
  it("are left out of the proxy (which would cut their bodies at 10 MB) and check access themselves", () => {
    const proxy = readFileSync(path.join(root, "proxy.ts"), "utf8");
    const matcher = /matcher: \["([^"]+)"\]/.exec(proxy)![1];
    const pattern = new RegExp(`^${matcher.replace("/(", "/(?:")}$`);
    for (const route of LARGE_BODY_ROUTES) {
      expect(pattern.test(route), `${route} goes through the proxy`).toBe(false);
      expect(pattern.test(`${route}/progress`)).toBe(true); // only the route itself is left out
      const source = readFileSync(path.join(root, "app", route, "route.ts"), "utf8");
      for (const handler of source.matchAll(
        /export async function (POST|PUT|PATCH|DELETE)\(request: NextRequest\) \{\n(.*\n){2}/g,
      ))
        expect(handler[0], `${route} ${handler[1]}`).toContain("gate(request)");
      expect([...source.matchAll(/export async function (\w+)/g)].length).toBe(
        [...source.matchAll(/const checked = gate\(request\);/g)].length,
      );
    }
    for (const other of ["/runs", "/api/reruns", "/api/ingest/progress", "/"]) expect(pattern.test(other)).toBe(true);
  });
});
