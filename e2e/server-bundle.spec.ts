import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import nextConfig from "../next.config";
import { codeStamp } from "../scripts/code-stamp.mjs";

const SERVER = path.resolve(import.meta.dirname, "..", ".next", "server");

/** Every source map of the server build: the chunks' files, and the sources each was made from. */
function serverMaps(dir = SERVER): { file: string; sources: string[] }[] {
  const out: { file: string; sources: string[] }[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...serverMaps(p));
    else if (e.name.endsWith(".js.map")) {
      const map = JSON.parse(readFileSync(p, "utf8")) as {
        sources?: string[];
        sections?: { map: { sources: string[] } }[];
      };
      const sources = map.sections ? map.sections.flatMap((s) => s.map.sources) : (map.sources ?? []);
      out.push({ file: path.relative(SERVER, p), sources: sources.map((s) => decodeURIComponent(s)) });
    }
  }
  return out;
}

// Bundled, a package is copied into the chunks of every route that imports it; Next loads every route at its start,
// so node-sql-parser (2.5 MB) held in a dozen copies was tens of MB of the server's memory (issue 36). The packages
// next.config.ts names as external are required from node_modules instead: none of their files is in a chunk.
test("the server's external packages are required from node_modules, not copied into the route chunks", () => {
  const external = nextConfig.serverExternalPackages ?? [];
  expect(external).toEqual(expect.arrayContaining(["node-sql-parser", "@pydantic/genai-prices"]));
  const maps = serverMaps();
  expect(maps.length).toBeGreaterThan(20); // the build's chunks were found
  const bundled = maps.flatMap(({ file, sources }) =>
    external.filter((pkg) => sources.some((s) => s.includes(`node_modules/${pkg}/`))).map((pkg) => `${pkg} in ${file}`),
  );
  expect(bundled).toEqual([]);
});

// The derived data kept in the store is keyed by the stamp of lib/'s sources (scripts/code-stamp.mjs): the server
// takes it from its build's id, the CLI from the file its build wrote. Built from the same sources, they agree, so
// what `metron ingest` computed ahead is what the server reads (issue 36).
test("the build's id starts with the stamp of the sources it was built from, as the CLI's", () => {
  const root = path.resolve(import.meta.dirname, "..");
  const [stamp, own] = readFileSync(path.join(root, ".next", "BUILD_ID"), "utf8")
    .trim()
    .split("-");
  expect(stamp).toBe(codeStamp(root));
  expect(own).toMatch(/^[0-9a-f]{12}$/); // each build's id is still its own
  expect(readFileSync(path.join(root, "dist", "cli", "code-stamp"), "utf8")).toBe(stamp);
});
