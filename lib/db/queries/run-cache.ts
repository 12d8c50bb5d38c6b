/**
 * Memoises data derived from runs by their versions: every write that changes a run's traces or metrics bumps
 * `runs.version` (ingest, evaluate, recompute, curation), so an entry is never stale. Two levels: a small LRU in the
 * process (on globalThis, for Next's route bundles), and the store's `derived_cache`, so that the first view after a
 * restart reads what an earlier view computed instead of computing it again (issue 36), unless the server was
 * rebuilt since (the build's id, METRON_CODE_STAMP, is part of the key). A value computed is stored
 * in the background (a page never waits for the store's write lock); one that JSON cannot carry exactly (a Map, an
 * infinity) or over 16 MB is kept in memory only.
 */
import type { Sql } from "@/lib/db/sql";
import { many, one, qb, write } from "@/lib/db/typed";
import { inJsonArray } from "@/lib/db/typed-sql";

const LIMIT = 64;
const STORED_MAX_CHARS = 16 * 1024 * 1024;
const g = globalThis as unknown as { metronRunCache?: Map<string, unknown> };
const cache = (g.metronRunCache ??= new Map());

/** The LRU itself: a hit moves to the end, the oldest entry goes when the cache is full. */
function remember<T>(key: string, value: T): T {
  cache.delete(key);
  cache.set(key, value);
  if (cache.size > LIMIT) cache.delete(cache.keys().next().value!);
  return value;
}

/** Memoises data derived from a run by its version, on either engine (keyed by the store's name). */
export function cachedByRun<T>(sql: Sql, runId: string, kind: string, compute: () => Promise<T>): Promise<T> {
  return cachedByRuns(sql, [runId], kind, compute);
}

/**
 * Memoises data derived from several runs (the Experiments overview of a view, a comparison) by all their versions:
 * any write to one of them gives a new key. Versions are read in one query.
 */
export async function cachedByRuns<T>(sql: Sql, runIds: string[], kind: string, compute: () => Promise<T>): Promise<T> {
  const ids = [...new Set(runIds)].sort();
  const versions = ids.length
    ? await many(
        sql,
        qb(sql)
          .selectFrom("runs")
          .select(["id", "version"])
          .where((eb) => inJsonArray(sql, eb, "id", ids)),
      )
    : [];
  versions.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const runs = ids.join(",");
  // The code that computed it too: a new build of Metron computes anew (it may count differently).
  const stamp = `${process.env.METRON_CODE_STAMP ?? "dev"}|${versions.map((v) => `${v.id}:${v.version}`).join(",")}`;
  const key = `${sql.name}\u0000${kind}\u0000${stamp}`;
  if (cache.has(key)) return remember(key, cache.get(key) as T);
  const kept = await one(
    sql,
    qb(sql)
      .selectFrom("derived_cache")
      .select("value")
      .where("kind", "=", kind)
      .where("runs", "=", runs)
      .where("versions", "=", stamp),
  );
  if (kept) return remember(key, JSON.parse(kept.value) as T);
  const value = await compute();
  remember(key, value);
  const text = exactJson(value);
  if (text !== null && text.length <= STORED_MAX_CHARS)
    void sql
      .transaction(async (tx) => {
        await write(tx, qb(tx).deleteFrom("derived_cache").where("kind", "=", kind).where("runs", "=", runs));
        await write(tx, qb(tx).insertInto("derived_cache").values({ kind, runs, versions: stamp, value: text }));
      })
      .catch(() => undefined); // kept in memory only; the next start computes it again
  return value;
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
