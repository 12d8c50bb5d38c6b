/**
 * Memoises derived data of a run by its version: every write that changes a run's traces or metrics bumps
 * `runs.version` (ingest, evaluate, recompute), so an entry is never stale. Kept on globalThis for Next's
 * route bundles; a small LRU bounds its memory.
 */
import type { Sql } from "@/lib/db/sql";
import { many, one, qb } from "@/lib/db/typed";
import { inJsonArray } from "@/lib/db/typed-sql";

const LIMIT = 64;
const g = globalThis as unknown as { metronRunCache?: Map<string, unknown> };
const cache = (g.metronRunCache ??= new Map());

/** The LRU itself: a hit moves to the end, the oldest entry goes when the cache is full. */
function remember<T>(key: string, compute: () => T): T {
  if (cache.has(key)) {
    const hit = cache.get(key) as T;
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const value = compute();
  cache.set(key, value);
  if (cache.size > LIMIT) cache.delete(cache.keys().next().value!);
  return value;
}

/** Memoises data derived from a run by its version, on either engine (keyed by the store's name). */
export async function cachedByRun<T>(sql: Sql, runId: string, kind: string, compute: () => Promise<T>): Promise<T> {
  const version = (await one(sql, qb(sql).selectFrom("runs").select("version").where("id", "=", runId)))?.version;
  return rememberAsync(`${sql.name}\u0000${runId}\u0000${version}\u0000${kind}`, compute);
}

/**
 * Memoises data derived from several runs (the Experiments overview of a view) by all their versions: any write to
 * one of them gives a new key. Versions are read in one query.
 */
export async function cachedByRuns<T>(sql: Sql, runIds: string[], kind: string, compute: () => Promise<T>): Promise<T> {
  const ids = [...runIds].sort();
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
  return rememberAsync(
    `${sql.name}\u0000${kind}\u0000${versions.map((v) => `${v.id}:${v.version}`).join(",")}`,
    compute,
  );
}

/** The same LRU, holding values; a computation that fails leaves nothing behind. */
async function rememberAsync<T>(key: string, compute: () => Promise<T>): Promise<T> {
  if (cache.has(key)) return remember(key, () => undefined as T);
  const value = await compute();
  return remember(key, () => value);
}
