import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { NextRequest } from "next/server";
import { gate, LARGE_BODY_ROUTES } from "./gate";
import { allowedHosts, hostName, hostRefusal } from "./hosts";

const root = path.resolve(import.meta.dirname, "..", "..");

describe("the large-body routes", () => {
  it("are left out of the proxy (which would cut their bodies at 10 MB) and check access themselves", () => {
    const proxy = readFileSync(path.join(root, "proxy.ts"), "utf8");
    const matcher = /matcher: \[\s*"([^"]+)",?\s*\]/.exec(proxy)![1];
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

describe("the allowed-host list (DNS rebinding, issue 28)", () => {
  const request = (host: string, method = "GET", extra: Record<string, string> = {}) =>
    new NextRequest(`http://${host}/api/export/overview.csv`, { method, headers: { host, ...extra } });

  it("refuses a Host that is not this machine's with 421, reads and writes alike, even from the page's own origin", async () => {
    for (const method of ["GET", "POST"]) {
      const r = gate(
        request("rebind.attacker.example:3000", method, { origin: "http://rebind.attacker.example:3000" }),
      );
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.response.status).toBe(421);
        expect((await r.response.json()).error).toMatch(/rebind\.attacker\.example:3000.*METRON_ALLOWED_HOSTS/);
      }
    }
  });

  it("accepts the loopback names with any port, and the hosts METRON_ALLOWED_HOSTS lists", () => {
    for (const host of ["localhost:3000", "127.0.0.1:3000", "[::1]:3000", "LOCALHOST", "127.0.0.2"])
      expect(gate(request(host)).ok, host).toBe(true);
    expect(hostRefusal("metron.lab.example:3000", allowedHosts("metron.lab.example"))).toBeNull();
    expect(hostRefusal("metron.lab.example:3000", allowedHosts("metron.lab.example:3000, other"))).toBeNull();
    expect(hostRefusal("metron.lab.example:3000", allowedHosts("metron.lab.example:8080"))).toMatch(/refused/);
    expect(hostRefusal("anything", allowedHosts("*"))).toBeNull();
    expect(hostRefusal(null, [])).toMatch(/names no Host/);
    expect(hostName("[::1]:3000")).toBe("[::1]");
  });
});
