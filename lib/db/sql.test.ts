import { AsyncLocalStorage } from "node:async_hooks";
import v8 from "node:v8";
import { afterAll, describe, expect, it } from "vitest";
import { openConnection } from "@/lib/db/client";
import { tempDb } from "@/lib/testing/db";
import { sqliteSql, wrapConnection } from "./sql";
import { one, raw, write } from "@/lib/db/typed";

/** Live `AsyncLocalStorage` objects in this process: an enabled one is held by Node until `disable()`. */
const liveContexts = () => {
  globalThis.gc?.();
  return v8.queryObjects(AsyncLocalStorage, { format: "count" }) as number;
};

describe("the SQLite store's transactions leave nothing behind (issue 35)", () => {
  const t = tempDb();
  afterAll(() => t.cleanup());

  it("keeps the number of live async contexts flat over 1,000 transactions of the server's shared connection", async () => {
    // As the server's store: each transaction on a connection of its own.
    const server = wrapConnection(openConnection(t.file), { transactionConnection: () => openConnection(t.file) });
    await server.exec("CREATE TABLE IF NOT EXISTS wear (n INTEGER)");
    await server.transaction(async (tx) => write(tx, raw`INSERT INTO wear VALUES (0)`));
    const before = liveContexts();
    for (let i = 1; i <= 1000; i++)
      await server.transaction(async (tx) => write(tx, raw`INSERT INTO wear VALUES (${i})`));
    expect(liveContexts()).toBe(before);
    expect((await one(server, raw<{ n: number }>`SELECT count(*) AS n FROM wear`))?.n).toBe(1001);
    await server.close();
  });

  it("keeps it flat over 200 stores opened and closed (a job's own store)", async () => {
    const before = liveContexts();
    for (let i = 0; i < 200; i++) {
      const own = sqliteSql(openConnection(t.file));
      await own.transaction(async (tx) => write(tx, raw`INSERT INTO wear VALUES (${-i})`));
      await own.close();
    }
    expect(liveContexts()).toBe(before);
  });

  it("still treats a transaction inside a transaction as part of it, and rolls both back on a throw", async () => {
    const sql = sqliteSql(openConnection(t.file));
    await sql.exec("CREATE TABLE IF NOT EXISTS nested (n INTEGER)");
    await expect(
      sql.transaction(async (tx) => {
        await write(tx, raw`INSERT INTO nested VALUES (1)`);
        await sql.transaction(async (inner) => write(inner, raw`INSERT INTO nested VALUES (2)`));
        throw new Error("abort");
      }),
    ).rejects.toThrow("abort");
    expect((await one(sql, raw<{ n: number }>`SELECT count(*) AS n FROM nested`))?.n).toBe(0);
    // Another store's transaction inside this one's is not part of it: it waits for the write lock, here in vain.
    const other = sqliteSql(openConnection(t.file));
    process.env.METRON_BUSY_TIMEOUT_MS = "300";
    await expect(
      sql.transaction(async (tx) => {
        await write(tx, raw`INSERT INTO nested VALUES (3)`);
        await other.transaction(async (o) => write(o, raw`INSERT INTO nested VALUES (4)`));
      }),
    ).rejects.toThrow(/locked/);
    delete process.env.METRON_BUSY_TIMEOUT_MS;
    expect((await one(other, raw<{ n: number }>`SELECT count(*) AS n FROM nested`))?.n).toBe(0);
    await other.close();
    await sql.close();
  });

  it("reuses the shared connection's idle transaction connections and closes them with it", async () => {
    let opened = 0;
    const server = wrapConnection(openConnection(t.file), {
      transactionConnection: () => (opened++, openConnection(t.file)),
    });
    for (let i = 0; i < 50; i++)
      await server.transaction(async (tx) => one(tx, raw<Record<string, unknown>>`SELECT 1`));
    expect(opened).toBe(1);
    // Concurrent transactions each get a connection: their writes do not see each other's uncommitted rows.
    await Promise.all(
      [1, 2, 3].map((n) =>
        server.transaction(async (tx) => one(tx, raw<Record<string, unknown>>`SELECT ${n} AS n`), { readOnly: true }),
      ),
    );
    expect(opened).toBeGreaterThanOrEqual(3);
    await server.close();
  });
});
