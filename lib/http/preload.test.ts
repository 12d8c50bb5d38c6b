import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createRequire } from "node:module";
import { instantiateClientModules, instantiatePages, instantiateTree, listPageEntries } from "./preload";

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/** A build folder with compiled entries at these paths under `.next/server/app`. */
function build(files: string[]): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "metron-preload-"));
  dirs.push(root);
  for (const f of files) {
    const file = path.join(root, ".next", "server", "app", f);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, "");
  }
  return root;
}

describe("the pages' code made ready at the start", () => {
  it("finds every page's entry but the API routes'", () => {
    const root = build([
      "page.js",
      "runs/[runId]/page.js",
      "runs/[runId]/questions/[questionId]/page.js",
      "runs/[runId]/route.js",
      "api/runs/page.js",
      "v1/traces/page.js",
      "search/page.js.map",
    ]);
    const app = path.join(root, ".next", "server", "app");
    expect(listPageEntries(app).map((f) => path.relative(app, f))).toEqual([
      "page.js",
      "runs/[runId]/page.js",
      "runs/[runId]/questions/[questionId]/page.js",
    ]);
    expect(listPageEntries(path.join(root, "missing"))).toEqual([]);
  });

  it("calls each lazy loader of a loader tree once, children and shared layouts included", async () => {
    const calls: string[] = [];
    const loader = (name: string) => [async () => calls.push(name), `app/${name}`];
    const layout = ["", {}, { layout: loader("root layout") }];
    const question = ["[questionId]", {}, { page: loader("question page"), loading: loader("question loading") }];
    const tree = [
      "",
      {
        children: ["runs", { children: question, modal: ["(.)x", {}, { page: [null, "no loader"] }] }, {}],
        again: question,
      },
      { layout: loader("layout"), "not-found": loader("not found"), metadata: { icon: [] } },
    ];
    const seen = new Set<unknown>();
    expect(await instantiateTree(tree, seen)).toBe(4);
    expect(calls.sort()).toEqual(["layout", "not found", "question loading", "question page"]);
    // Another page sharing a subtree met before does not load it again.
    expect(await instantiateTree(["", { children: question }, {}], seen)).toBe(0);
    expect(await instantiateTree(layout, seen)).toBe(1);
    expect(await instantiateTree(undefined)).toBe(0);
    expect(await instantiateTree({ not: "a tree" })).toBe(0);
  });

  it("loads the chunks of each page's client components, then instantiates them, once across pages", async () => {
    const root = build(["page.js", "runs/[runId]/page.js", "search/page.js"]);
    const app = path.join(root, ".next", "server", "app");
    // The client-reference manifests the build writes beside the entries (search/ has none).
    const manifest = (route: string, refs: Record<string, string[]>) =>
      writeFileSync(
        path.join(app, route, "page_client-reference-manifest.js"),
        `globalThis.__RSC_MANIFEST = globalThis.__RSC_MANIFEST || {};
globalThis.__RSC_MANIFEST[${JSON.stringify(`/${route ? `${route}/` : ""}page`)}] = ${JSON.stringify({
          ssrModuleMapping: Object.fromEntries(
            Object.entries(refs).map(([id, chunks]) => [id, { "*": { id: Number(id), name: "*", chunks } }]),
          ),
        })};`,
      );
    manifest("", { 11: ["server/chunks/ssr/a.js", "server/chunks/ssr/b.js"], 12: ["server/chunks/ssr/c.js"] });
    manifest("runs/[runId]", { 12: ["server/chunks/ssr/c.js"], 13: ["server/chunks/ssr/d.js"] });
    const events: string[] = [];
    const entry = {
      __next_app__: {
        loadChunk: async (c: string) => void events.push(`load ${path.basename(c)}`),
        require: (id: unknown) => void events.push(`require ${String(id)}`),
      },
    };
    const requireFile = createRequire(path.join(app, "index.js"));
    const r = await instantiatePages(root, (file) => (file.endsWith("manifest.js") ? requireFile(file) : entry));
    expect(r).toMatchObject({ pages: 3, modules: 3, failed: [] });
    expect(events).toEqual([
      "load a.js",
      "load b.js",
      "require 11",
      "load c.js",
      "require 12",
      "load d.js",
      "require 13",
    ]);
    // An entry without the bundler's chunk loader (another Next.js) loads none.
    expect(await instantiateClientModules(app, path.join(app, "page.js"), {}, requireFile, new Set())).toBe(0);
  });

  it("names a page whose modules fail and goes on with the others", async () => {
    const root = build(["page.js", "runs/[runId]/page.js", "search/page.js"]);
    const loaded: string[] = [];
    const tree = (name: string) => ({
      routeModule: { userland: { loaderTree: ["", {}, { page: [async () => loaded.push(name), name] }] } },
    });
    const r = await instantiatePages(root, (file) => {
      if (file.includes("[runId]")) throw new Error("Cannot find module 'gone'");
      return tree(path.basename(path.dirname(file)));
    });
    expect(r.pages).toBe(3);
    expect(r.modules).toBe(2);
    expect(r.failed).toEqual([path.join("runs", "[runId]", "page.js")]);
    expect(loaded.sort()).toEqual(["app", "search"]);
    // A build folder that cannot be listed (here a file where the folder should be) loads nothing and does not throw.
    const broken = mkdtempSync(path.join(os.tmpdir(), "metron-preload-"));
    dirs.push(broken);
    mkdirSync(path.join(broken, ".next", "server"), { recursive: true });
    writeFileSync(path.join(broken, ".next", "server", "app"), "not a folder");
    expect(await instantiatePages(broken, () => tree("never"))).toMatchObject({ pages: 0, modules: 0, failed: [] });
    expect(loaded).not.toContain("never");
    // An entry without a loader tree (another Next.js) instantiates nothing and fails nothing.
    const other = await instantiatePages(root, () => ({}));
    expect(other).toMatchObject({ pages: 3, modules: 0, failed: [] });
  });
});
