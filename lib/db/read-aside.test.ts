/**
 * Statements read aside (lib/db/read-aside.ts): on a worker's read-only connection for a SQLite store file, with the
 * rows `many` gives, while the event loop turns; in-thread inside a transaction, and for PostgreSQL.
 */
import { copyFileSync, renameSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ingestStream } from "@/lib/ingest/ingest";
import { chunksOf, tempDb } from "@/lib/testing/db";
import { turnsDuring } from "@/lib/testing/event-loop";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { jsonl, makeTraceLine } from "@/lib/testing/factories";
import { openConnection } from "./client";
import { manyAside } from "./read-aside";
import { many, qb, raw, write } from "./typed";

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

  it("waits for a lock another connection holds up to METRON_BUSY_TIMEOUT_MS, as the store's connections do", async () => {
    /** A store whose file another connection holds for itself for `ms` (as a checkpoint that truncates the log does,
     * for a moment), then lets go without committing. It can while no other connection has the file open. */
    const heldFor = async (ms: number) => {
      const t = tempDb();
      after(t);
      await ingestStream(t.sql, chunksOf(jsonl(makeTraceLine({ run: { name: "kept", system: "s", model: "m" } }))));
      t.db.$client.close();
      const holder = openConnection(t.file);
      holder.pragma("locking_mode = EXCLUSIVE");
      holder.exec("BEGIN EXCLUSIVE");
      holder.exec("UPDATE runs SET name = 'not committed'");
      setTimeout(() => holder.close(), ms);
      return t;
    };
    const before = process.env.METRON_BUSY_TIMEOUT_MS;
    try {
      process.env.METRON_BUSY_TIMEOUT_MS = "3000";
      const waited = await heldFor(300);
      const started = performance.now();
      const rows = await manyAside(waited.sql, qb(waited.sql).selectFrom("runs").select("name"));
      expect(rows.map((r) => r.name)).toEqual(["kept"]);
      expect(performance.now() - started).toBeGreaterThanOrEqual(250);
      // Past the setting, the statement fails as the store's own connection's would (better-sqlite3 alone waits 5 s).
      process.env.METRON_BUSY_TIMEOUT_MS = "100";
      const gaveUp = await heldFor(1500);
      await expect(manyAside(gaveUp.sql, qb(gaveUp.sql).selectFrom("runs").select("name"))).rejects.toThrow(
        /database is locked/,
      );
    } finally {
      if (before === undefined) delete process.env.METRON_BUSY_TIMEOUT_MS;
      else process.env.METRON_BUSY_TIMEOUT_MS = before;
    }
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
