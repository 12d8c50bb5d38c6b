/**
 * Statements read aside (lib/db/read-aside.ts): on a worker's read-only connection for a SQLite store file, with the
 * rows `many` gives, while the event loop turns; in-thread inside a transaction, and for PostgreSQL.
 */
import { copyFileSync, renameSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ingestStream } from "@/lib/ingest/ingest";
import { chunksOf, tempDb } from "@/lib/testing/db";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { jsonl, makeTraceLine } from "@/lib/testing/factories";
import { manyAside } from "./read-aside";
import { many, qb, raw, write } from "./typed";

/** How many times the event loop turned while `work` ran. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let on = true;
  const tick = () => {
    if (!on) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { value: await work(), turns };
  } finally {
    on = false;
  }
}

/** A statement that takes a while: SQLite counts to `n`. */
const counting = (n: number) =>
  raw<{
    n: number;
  }>`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ${n}) SELECT count(*) AS n FROM c`;

describe.each(ENGINES)("statements read aside (%s store)", (engine) => {
  const store = useEngineStore(engine, async (s) => {
    await ingestStream(
      s.sql,
      chunksOf(
        jsonl(
          makeTraceLine({ run: { name: "a", system: "s", model: "m" }, question: { id: "1" } }),
          makeTraceLine({ run: { name: "b", system: "s", model: "m" }, question: { id: "2" } }),
        ),
      ),
    );
  });

  it("gives the rows `many` gives, and a statement's error as SQLite words it", async () => {
    const q = qb(store.sql)
      .selectFrom("traces")
      .select(["id", "question_id", "recorded_correct", "evidence"])
      .where("question_id", "in", ["1", "2"])
      .orderBy("id");
    expect(await manyAside(store.sql, q)).toEqual(await many(store.sql, q));
    await expect(manyAside(store.sql, raw`SELECT * FROM no_such_table`)).rejects.toThrow(
      /no such table|does not exist/,
    );
  });

  it("reads a transaction's own rows inside it, and what was committed outside it", async () => {
    await store.sql.transaction(async (tx) => {
      await write(tx, raw`UPDATE runs SET name = 'renamed' WHERE name = 'a'`);
      const inside = await manyAside(tx, qb(tx).selectFrom("runs").select("name").orderBy("name"));
      expect(inside.map((r) => r.name)).toEqual(["b", "renamed"]);
    });
    const after = await manyAside(store.sql, qb(store.sql).selectFrom("runs").select("name").orderBy("name"));
    expect(after.map((r) => r.name)).toEqual(["b", "renamed"]);
  });
});

describe("the reader aside of a SQLite store file", () => {
  const made: ReturnType<typeof tempDb>[] = [];
  const after = (t: ReturnType<typeof tempDb>) => made.push(t);
  afterEach(() => {
    for (const t of made.splice(0)) t.cleanup();
  });

  it("lets the event loop turn while a long statement runs", async () => {
    const t = tempDb();
    after(t);
    const aside = await turnsDuring(() => manyAside(t.sql, counting(2_000_000)));
    expect(aside.value).toEqual([{ n: 2_000_000 }]);
    expect(aside.turns).toBeGreaterThan(2);
    // The same statement on the store's own connection holds the event loop throughout.
    const inThread = await turnsDuring(() => many(t.sql, counting(2_000_000)));
    expect(inThread.turns).toBe(0);
  });

  it("reads the file now at the store's path when another took its place (a store restored or replaced)", async () => {
    const first = tempDb();
    const second = tempDb();
    after(first);
    after(second);
    for (const [t, name] of [
      [first, "in the first file"],
      [second, "in the second file"],
    ] as const) {
      await ingestStream(t.sql, chunksOf(jsonl(makeTraceLine({ run: { name, system: "s", model: "m" } }))));
      t.db.$client.pragma("wal_checkpoint(TRUNCATE)");
    }
    const runs = async () =>
      (await manyAside(first.sql, qb(first.sql).selectFrom("runs").select("name"))).map((r) => r.name);
    expect(await runs()).toEqual(["in the first file"]);
    copyFileSync(second.file, path.join(first.dir, "incoming.db"));
    renameSync(path.join(first.dir, "incoming.db"), first.file);
    expect(await runs()).toEqual(["in the second file"]);
  });
});
