/**
 * Memoises data derived from runs by their versions: every write that changes a run's traces or metrics bumps
 * `runs.version` (ingest, evaluate, recompute, curation), so an entry is never stale. Two levels: a small LRU in the
 * process (on globalThis, for Next's route bundles), and the store's `derived_cache`, so that the first view after a
 * restart reads what an earlier view computed instead of computing it again (issue 36), unless the server was
 * rebuilt since (the build's id, METRON_CODE_STAMP, is part of the key). A value a page computed is stored a moment
 * later, in the background: the page waits neither for its JSON (a comparison of three 5,000-question runs is 5 MB,
 * 50–80 ms to write out) nor for the store's write lock. One that JSON cannot carry exactly (a Map, an infinity) or
 * over 16 MB is kept in memory only. `lib/views/ahead.ts` computes a run's views ahead, after its writes.
 */
import type { Sql } from "@/lib/db/sql";
import { many, one, qb, write } from "@/lib/db/typed";
import { inJsonArray } from "@/lib/db/typed-sql";

const LIMIT = 64;
const STORED_MAX_CHARS = 16 * 1024 * 1024;
const g = globalThis as unknown as {
  metronRunCache?: Map<string, unknown>;
  metronRunCacheComputing?: Map<string, Promise<unknown>>;
};
const cache = (g.metronRunCache ??= new Map());
/**
 * Computations under way, by key: a request that asks for a view being computed (a second first request, a page
 * during the pass ahead) waits for that computation instead of starting its own. Computing a large view gives the
 * event loop its turns (lib/db/queries/overview.ts), so requests do arrive meanwhile.
 */
const computing = (g.metronRunCacheComputing ??= new Map());

/** `compute()`, or the same computation already under way for `key`. */
function computeOnce<T>(key: string, compute: () => Promise<T>): Promise<T> {
  let pending = computing.get(key) as Promise<T> | undefined;
  if (!pending) {
    pending = compute().finally(() => computing.delete(key));
    computing.set(key, pending);
  }
  return pending;
}
/** Values waiting to be stored (a page's, after STORE_DELAY_MS), by key: `flushDerived` stores them at once. */
const waiting = new Map<string, { timer: NodeJS.Timeout; store: () => Promise<void> }>();
const STORE_DELAY_MS = 250;
/**
 * How a memoised view is asked for: by a page (`"page"`: kept in the process's LRU, stored a moment later), or ahead of
 * any page (`"ahead"`, lib/views/ahead.ts: stored before the call returns, and not kept in the LRU, whose 64 places are
 * the pages' — a run's units are megabytes).
 */
export type CacheMode = "page" | "ahead";

/** The LRU itself: a hit moves to the end, the oldest entry goes when the cache is full. */
function remember<T>(key: string, value: T): T {
  cache.delete(key);
  cache.set(key, value);
  if (cache.size > LIMIT) cache.delete(cache.keys().next().value!);
  return value;
}

/** Memoises data derived from a run by its version, on either engine (keyed by the store's name). */
export function cachedByRun<T>(
  sql: Sql,
  runId: string,
  kind: string,
  compute: () => Promise<T>,
  mode: CacheMode = "page",
): Promise<T> {
  return cachedByRuns(sql, [runId], kind, compute, mode);
}

/**
 * Memoises data derived from several runs (the Experiments overview of a view, a comparison) by all their versions:
 * any write to one of them gives a new key. Versions are read in one query.
 */
export async function cachedByRuns<T>(
  sql: Sql,
  runIds: string[],
  kind: string,
  compute: () => Promise<T>,
  mode: CacheMode = "page",
): Promise<T> {
  const ahead = mode === "ahead";
  const ids = [...new Set(runIds)].sort();
  const stampNow = (db: Sql) => stampOf(db, ids);
  const stamp = await stampNow(sql);
  const runs = ids.join(",");
  const key = `${sql.name}\u0000${kind}\u0000${stamp}`;
  // Ahead, a value this process holds is stored all the same when the store lacks it (a page's write may be waiting
  // or may have failed): the views are computed ahead for the store, not for this process.
  if (cache.has(key) && !ahead) return remember(key, cache.get(key) as T);
  const kept = await one(sql, storedFor(sql, kind, runs, stamp).select("value"));
  if (kept) return ahead ? (JSON.parse(kept.value) as T) : remember(key, JSON.parse(kept.value) as T);
  const value = ahead && cache.has(key) ? (cache.get(key) as T) : await computeOnce(key, compute);
  const store = async () => {
    clearTimeout(waiting.get(key)?.timer); // stored now: a page's write waiting for the same key is not needed
    waiting.delete(key);
    const text = exactJson(value);
    if (text === null || text.length > STORED_MAX_CHARS) return;
    try {
      await sql.transaction(async (tx) => {
        // Computed for versions the runs have left since (a page's write waits a moment): not stored over the value
        // of their new version, which a pass ahead may have stored meanwhile.
        if ((await stampNow(tx)) !== stamp) return;
        // One statement, not a delete then an insert: two connections storing the same view at once (a page's
        // delayed write and a pass ahead, on PostgreSQL) both succeed instead of one failing on the key.
        await write(
          tx,
          qb(tx)
            .insertInto("derived_cache")
            .values({ kind, runs, versions: stamp, value: text })
            .onConflict((oc) =>
              oc.columns(["kind", "runs"]).doUpdateSet((eb) => ({
                versions: eb.ref("excluded.versions"),
                value: eb.ref("excluded.value"),
              })),
            ),
        );
      });
    } catch {
      // kept in memory only (a busy or closed store); the next start computes it again
    }
  };
  if (ahead) {
    await store();
    return value;
  }
  remember(key, value);
  if (!waiting.has(key)) waiting.set(key, { timer: setTimeout(() => void store(), STORE_DELAY_MS).unref(), store });
  return value;
}

/** The stamp of these runs (sorted, distinct ids) as they are now in the store. */
async function stampOf(db: Sql, ids: string[]): Promise<string> {
  return derivedStamp(
    ids.length
      ? await many(
          db,
          qb(db)
            .selectFrom("runs")
            .select(["id", "version", "created_at"])
            .where((eb) => inJsonArray(db, eb, "id", ids)),
        )
      : [],
  );
}

/** Whether the store holds `kind` derived from these runs as they are now, by this build (without reading it). */
export async function hasDerived(sql: Sql, runIds: string[], kind: string): Promise<boolean> {
  const ids = [...new Set(runIds)].sort();
  return (await one(sql, storedFor(sql, kind, ids.join(","), await stampOf(sql, ids)).select("kind"))) !== undefined;
}

/** The store's row of `kind` for these runs (ids sorted, joined by commas) under this stamp. */
function storedFor(db: Sql, kind: string, runs: string, stamp: string) {
  return qb(db)
    .selectFrom("derived_cache")
    .where("kind", "=", kind)
    .where("runs", "=", runs)
    .where("versions", "=", stamp);
}

/**
 * What a derived value is keyed by besides its kind and runs: the code that computed it (a new build of Metron
 * computes anew: it may count differently) and each run's version and creation, in run id order. A run deleted and
 * uploaded again has the same id and starts at the same version: its creation tells it from the run it replaces.
 */
export function derivedStamp(versions: { id: string; version: number; created_at: string }[]): string {
  const sorted = [...versions].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return `${process.env.METRON_CODE_STAMP ?? "dev"}|${sorted.map((v) => `${v.id}:${v.version}:${v.created_at}`).join(",")}`;
}

/** Stores now the values pages computed that are still waiting (before a process exits; tests). */
export async function flushDerived(): Promise<void> {
  const all = [...waiting.values()];
  for (const w of all) clearTimeout(w.timer);
  await Promise.all(all.map((w) => w.store()));
}

/** The value as JSON when JSON gives it back exactly (plain objects, arrays, finite numbers, strings), else null. */
function exactJson(value: unknown): string | null {
  let exact = true;
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === "number" && !Number.isFinite(v)) exact = false;
    else if (v instanceof Map || v instanceof Set || typeof v === "bigint" || typeof v === "function") exact = false;
    return typeof v === "bigint" ? null : v;
  });
  return exact && text !== undefined ? text : null;
}
