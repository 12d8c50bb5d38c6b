import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ingestStream } from "@/lib/ingest/ingest";
import type { Sql } from "@/lib/db/sql";
import { ENGINES, engineStore, type EngineStore } from "@/lib/testing/engines";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { startFakeOpenAI, type FakeServer } from "@/lib/testing/fake-openai";
import { hostname } from "node:os";
import { serverWorker, stopServerWorker } from "./jobs";
import { getRecordedRerun, getRerun, RerunLimitError, startRerun, type RerunJob } from "./reruns";
import { count, countN, many, one, qb, raw, write } from "@/lib/db/typed";
import { jsonText } from "@/lib/db/typed-sql";

describe.each(ENGINES)("reruns on the %s store", (engine) => {
  let store: EngineStore;
  let sql: Sql;
  let open: EngineStore["open"];
  const KEY = "sk-test-ECHOED-secret-9a7b3c2d1e";
  let traceId = "";
  let fake: FakeServer | undefined;
  const saved = { ...process.env };

  beforeAll(async () => {
    store = await engineStore(engine);
    ({ sql, open } = store);
    await importSpiderDe(store);
    const report = await ingestStream(
      sql,
      (async function* () {
        yield Buffer.from(
          JSON.stringify({
            run: { name: "orig", system: "No Directives", model: "m", benchmark: "spider-de" },
            question: { id: "22" },
            steps: [],
          }) + "\n",
        );
      })(),
    );
    traceId = (
      (await one(sql, raw<Record<string, unknown>>`SELECT id FROM traces WHERE run_id = ${report.runs[0].id}`)) as {
        id: string;
      }
    ).id;
  });
  afterAll(async () => {
    process.env = saved;
    await fake?.close();
    await stopServerWorker(); // the next engine's reruns get a worker of their own
    await store.cleanup();
  });

  const finished = (job: RerunJob) =>
    new Promise<void>((resolve) => {
      if (job.events.some((e) => e.type === "done" || e.type === "failed")) return resolve();
      job.listeners.add((e) => {
        if (e.type === "done" || e.type === "failed") resolve();
      });
    });
  const request = (over: Partial<Parameters<typeof startRerun>[1]> = {}) => ({
    traceId,
    provider: "compatible" as const,
    model: "fake",
    variant: "none" as const,
    client: "mallory",
    limits: { maxSteps: 200, wallTimeMs: 3_600_000, maxOutputTokens: 64_000 },
    ...over,
  });

  describe("rerun spending limits", () => {
    it("1,000 requests from one client: the ones past the cap are refused, and the provider is called at most cap times", async () => {
      fake = await startFakeOpenAI([{ toolCalls: [{ name: "submit_final_query", args: { query: "SELECT 1" } }] }]);
      process.env.METRON_OPENAI_COMPATIBLE_URL = fake.url;
      process.env.METRON_RERUN_MAX_PER_CLIENT = "4";
      // The burst arrives before any job can end (on PostgreSQL a request waits on the network, and a worker would
      // finish jobs in between): no worker takes them until it is over.
      await stopServerWorker();
      process.env.METRON_WORKERS = "0";
      const accepted: RerunJob[] = [];
      let refused = 0;
      for (let i = 0; i < 1000; i++) {
        try {
          accepted.push(await startRerun(open, request()));
        } catch (e) {
          expect(e).toBeInstanceOf(RerunLimitError);
          expect((e as Error).message).toMatch(/METRON_RERUN_MAX_PER_CLIENT/);
          refused++;
        }
      }
      expect(accepted).toHaveLength(4);
      expect(refused).toBe(996);
      delete process.env.METRON_WORKERS;
      serverWorker(open)!.kick();
      // The server's maxima win over a request's: limits are lowered, never raised.
      const stored = (await one(
        sql,
        raw<Record<string, unknown>>`SELECT limits FROM jobs WHERE id = ${accepted[0].id}`,
      )) as {
        limits: string;
      };
      expect(JSON.parse(stored.limits)).toEqual({ maxSteps: 30, wallTimeMs: 300_000, maxOutputTokens: 4096 });
      await Promise.all(accepted.map(finished));
      expect(fake.requests.length).toBeLessThanOrEqual(4);
      // Another client still gets its turn.
      const other = await startRerun(open, request({ client: "alice" }));
      await finished(other);
      expect(getRerun(other.id)!.events.at(-1)).toMatchObject({ type: "done", status: "submitted" });
      await fake.close();
      fake = undefined;
    });

    it("a provider that echoes its key: the key is nowhere — store, events, logs", async () => {
      fake = await startFakeOpenAI([
        { error: 401, message: `Incorrect API key provided: ${KEY}. Authorization: Bearer ${KEY}` },
      ]);
      process.env.METRON_OPENAI_COMPATIBLE_URL = fake.url;
      process.env.METRON_OPENAI_COMPATIBLE_KEY = KEY;
      const logged: string[] = [];
      const spies = (["log", "error", "warn", "info"] as const).map((m) =>
        vi.spyOn(console, m).mockImplementation((...args: unknown[]) => {
          logged.push(args.map(String).join(" "));
        }),
      );
      try {
        const job = await startRerun(open, request({ client: "echo" }));
        await finished(job);
        expect(fake.requests[0].headers.authorization).toBe(`Bearer ${KEY}`); // the key was really used
        const events = JSON.stringify(job.events);
        expect(events).toContain("[redacted]");
        expect(events).not.toContain(KEY);
        const dump = async (text: string) =>
          (await many<Record<string, unknown>>(sql, raw.raw(text)))
            .map((r) => Object.values(r).join("\u0000"))
            .join("\n");
        const everything = [
          await dump("SELECT * FROM traces"),
          await dump("SELECT * FROM steps"),
          await dump("SELECT * FROM jobs"),
          await dump("SELECT * FROM blobs"),
          await dump("SELECT * FROM upload_errors"),
        ].join("\n");
        expect(everything).toContain("Incorrect API key provided");
        expect(everything).not.toContain(KEY);
        expect(logged.join("\n")).not.toContain(KEY);
      } finally {
        spies.forEach((s) => s.mockRestore());
      }
    });

    it("a rerun a dead worker left running is taken back and finishes: its record says so, nothing is lost", async () => {
      fake = await startFakeOpenAI([{ toolCalls: [{ name: "submit_final_query", args: { query: "SELECT 1" } }] }]);
      process.env.METRON_OPENAI_COMPATIBLE_URL = fake.url;
      await write(
        sql,
        raw`INSERT INTO jobs (id, trace_id, dataset_id, question_id, client, provider, model, variant, state, worker, lease_until, attempts)
         SELECT 'from-before', t.id, r.dataset_id, t.question_id, 'x', 'compatible', 'fake', 'none', 'running', ${`${hostname()}:999999:dead`}, ${Date.now() + 600_000}, 1
         FROM traces t JOIN runs r ON r.id = t.run_id WHERE t.id = ${traceId}`,
      );
      serverWorker(open)!.kick();
      await vi.waitFor(async () => expect((await getRecordedRerun(sql, "from-before"))?.state).toBe("done"), {
        timeout: 20_000,
      });
      const row = (await one(
        sql,
        raw<Record<string, unknown>>`SELECT attempts, result_trace_id AS t FROM jobs WHERE id = 'from-before'`,
      )) as {
        attempts: number;
        t: string;
      };
      expect(row.attempts).toBe(2); // the dead worker's attempt and the one that finished
      expect(
        await count(
          sql,
          qb(sql)
            .selectFrom("traces")
            .select(countN)
            .where((eb) => eb(jsonText(sql, eb, "meta", "rerun_job"), "=", "from-before")),
        ),
      ).toBe(1);
      await fake.close();
      fake = undefined;
    });
  });
});
