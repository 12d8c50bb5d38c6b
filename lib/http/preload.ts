/**
 * The pages' code made ready before the server answers (instrumentation.ts; production, `METRON_PRELOAD=0` turns it
 * off). Next loads every page's compiled entry at its start, but a page's own modules (its layouts, the page, what
 * they import: the highlighter, the charts) are instantiated by the first request that renders it: 0.4–1 s on a first
 * question page, two thirds of it module instantiation (profiled). Here each page's loader tree is walked and its
 * lazy loaders called once, and the server-rendering modules of its client components are loaded, so that a first
 * click costs what a second one does. What it does not cover (a first
 * query's cold pages, a first render) the warm-up after the start (warm-up.ts) pays.
 */
import { existsSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** The compiled page entries under `.next/server/app`: every `page.js` but those of the API routes. */
export function listPageEntries(appDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (dir === appDir && (e.name === "api" || e.name === "v1")) continue;
        walk(p);
      } else if (e.name === "page.js") out.push(p);
    }
  };
  if (existsSync(appDir)) walk(appDir);
  return out.sort();
}

/**
 * Calls every lazy loader of a loader tree (Next's `[segment, parallelRoutes, components]`, each component a
 * `[loader, path]`), children included; a tree met before is skipped. Returns how many loaders it called.
 */
export async function instantiateTree(tree: unknown, seen = new Set<unknown>()): Promise<number> {
  if (!Array.isArray(tree) || seen.has(tree)) return 0;
  seen.add(tree);
  const [, parallel, components] = tree as [unknown, unknown, unknown];
  let n = 0;
  for (const entry of Object.values(isRecord(components) ? components : {})) {
    const loader: unknown = Array.isArray(entry) ? entry[0] : undefined;
    if (typeof loader === "function") {
      await (loader as () => unknown)();
      n++;
    }
  }
  for (const child of Object.values(isRecord(parallel) ? parallel : {})) n += await instantiateTree(child, seen);
  return n;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/** A compiled page entry: its loader tree, and the bundler's loader of its chunks (Turbopack's `__next_app__`). */
interface PageEntry {
  routeModule?: { userland?: { loaderTree?: unknown } };
  __next_app__?: { loadChunk?: (chunk: string) => unknown; require?: (id: unknown) => unknown };
}

/**
 * The server-rendering modules of a page's client components (named in its client-reference manifest, which the
 * build writes beside the entry), loaded and instantiated as a first render would: the loader tree reaches the
 * server components only, and a first run page spent about 40 ms loading these chunks. A module met on an earlier page
 * is skipped. Returns how many it instantiated; an entry without a manifest or a chunk loader instantiates none.
 */
export async function instantiateClientModules(
  appDir: string,
  file: string,
  entry: PageEntry | undefined,
  load: (file: string) => unknown,
  seen: Set<string>,
): Promise<number> {
  const app = entry?.__next_app__;
  const manifestFile = file.replace(/page\.js$/, "page_client-reference-manifest.js");
  if (typeof app?.loadChunk !== "function" || typeof app.require !== "function" || !existsSync(manifestFile)) return 0;
  load(manifestFile); // sets globalThis.__RSC_MANIFEST[<route>/page]
  const key = "/" + path.relative(appDir, file).replace(/\.js$/, "").split(path.sep).join("/");
  const manifests = (globalThis as { __RSC_MANIFEST?: Record<string, unknown> }).__RSC_MANIFEST;
  const mapping = isRecord(manifests) && isRecord(manifests[key]) ? manifests[key].ssrModuleMapping : undefined;
  let n = 0;
  for (const exports of Object.values(isRecord(mapping) ? mapping : {})) {
    for (const ref of Object.values(isRecord(exports) ? exports : {})) {
      if (!isRecord(ref) || !Array.isArray(ref.chunks)) continue;
      const id = String(ref.id);
      if (seen.has(id)) continue;
      seen.add(id);
      await Promise.all(ref.chunks.filter((c): c is string => typeof c === "string").map((c) => app.loadChunk!(c)));
      app.require(ref.id);
      n++;
    }
  }
  return n;
}

/**
 * Instantiates the modules of every page of the build under `root`. Never throws: a page whose modules fail is
 * counted and named in the log, a build folder that cannot be listed is named in the log, and the server starts as it
 * would have. A build whose entries have no loader tree
 * (another Next.js) instantiates nothing.
 */
export async function instantiatePages(
  root = process.cwd(),
  load: (file: string) => unknown = createRequire(path.join(root, ".next", "server", "app", "index.js")),
): Promise<{ pages: number; modules: number; failed: string[]; ms: number }> {
  const started = performance.now();
  const appDir = path.join(root, ".next", "server", "app");
  let modules = 0;
  const failed: string[] = [];
  const seen = new Set<unknown>();
  const seenClient = new Set<string>();
  let files: string[];
  try {
    files = listPageEntries(appDir);
  } catch (e) {
    // An unreadable build folder: the server starts as it would have, and the first requests load the code.
    console.error(`metron: listing the pages' code at the start: ${(e as Error).message}`);
    return { pages: 0, modules: 0, failed: [], ms: performance.now() - started };
  }
  for (const file of files) {
    try {
      const m = load(file) as PageEntry | undefined;
      modules += await instantiateTree(m?.routeModule?.userland?.loaderTree, seen);
      modules += await instantiateClientModules(appDir, file, m, load, seenClient);
    } catch (e) {
      failed.push(path.relative(appDir, file));
      console.error(`metron: loading the code of ${path.relative(appDir, file)} at the start: ${(e as Error).message}`);
    }
  }
  return { pages: files.length, modules, failed, ms: performance.now() - started };
}

/** At a production server's start, before it answers (instrumentation.ts): one line in the log. */
export async function preloadServer(): Promise<void> {
  if (process.env.METRON_PRELOAD === "0" || process.env.NODE_ENV !== "production") return;
  const r = await instantiatePages();
  console.log(
    `metron: made the code of ${r.pages - r.failed.length} of ${r.pages} pages ready (${r.modules} modules) in ${Math.round(r.ms)} ms`,
  );
}
