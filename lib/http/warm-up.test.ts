/** The warm-up after a server start (issue 36): which pages it requests, and that it waits, goes on and never throws. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ingestStream } from "@/lib/ingest/ingest";
import { chunksOf } from "@/lib/testing/db";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { jsonl, makeTraceLine } from "@/lib/testing/factories";
import { many, qb, write } from "@/lib/db/typed";
import { listWarmUpPaths, warmUp, warmUpSummary } from "./warm-up";

describe.each(ENGINES)("the warm-up's pages (%s store)", (engine) => {
  const store = useEngineStore(engine, async (s) => {
    await ingestStream(
      s.sql,
      chunksOf(
        jsonl(
          makeTraceLine({ run: { name: "older", system: "s", model: "m" } }),
          makeTraceLine({ run: { name: "newer", system: "s", model: "m" } }),
        ),
      ),
    );
  });

  it("are the newest run's page, one of its questions and its comparison with the run before it", async () => {
    const q = qb(store.sql);
    const runs = await many(store.sql, q.selectFrom("runs").select(["id", "name"]));
    const newer = runs.find((r) => r.name === "newer")!.id;
    const older = runs.find((r) => r.name === "older")!.id;
    await write(
      store.sql,
      q.updateTable("runs").set({ created_at: "2030-01-01T00:00:00.000Z" }).where("id", "=", newer),
    );
    const [{ question_id }] = await many(
      store.sql,
      q.selectFrom("traces").select("question_id").where("run_id", "=", newer),
    );
    const question = encodeURIComponent(question_id);
    expect(await listWarmUpPaths(store.sql)).toEqual([
      "/",
      "/experiments",
      "/search",
      `/runs/${newer}`,
      `/compare?runs=${newer},${older}`,
      `/runs/${newer}/questions/${question}`,
      `/compare/questions/${question}?runs=${newer},${older}`,
    ]);
  });
});

describe("warmUp", () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

  const serve = (handle: (path: string, res: import("node:http").ServerResponse) => void) =>
    new Promise<string>((resolve) => {
      server = createServer((req, res) => handle(req.url!, res));
      server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server!.address() as AddressInfo).port}`));
    });

  it("waits until the server answers, then requests each page once, in order, past one that fails", async () => {
    const seen: string[] = [];
    let probes = 0;
    const origin = await serve((path, res) => {
      if (path === "/api/schema/trace") {
        res.statusCode = ++probes < 3 ? 503 : 200; // not ready for the first two probes
        return res.end("{}");
      }
      seen.push(path);
      if (path === "/broken") res.destroy();
      else {
        res.statusCode = path === "/missing" ? 404 : 200;
        res.end("<html>page</html>");
      }
    });
    const results = await warmUp(origin, ["/", "/broken", "/missing", "/runs/a"], { pollMs: 10 });
    expect(probes).toBe(3);
    expect(seen).toEqual(["/", "/broken", "/missing", "/runs/a"]);
    expect(results.map((r) => [r.path, r.status])).toEqual([
      ["/", 200],
      ["/broken", null],
      ["/missing", 404],
      ["/runs/a", 200],
    ]);
    expect(results[1].error).toBeTruthy();
  });

  it("takes a 401 for an answer (access tokens on): the pages are requested at once, not after the minute's wait", async () => {
    const seen: string[] = [];
    const origin = await serve((path, res) => {
      seen.push(path);
      res.statusCode = 401;
      res.end("{}");
    });
    const started = performance.now();
    const results = await warmUp(origin, ["/", "/runs/a"], { pollMs: 10, readyMs: 30_000 });
    expect(seen).toEqual(["/api/schema/trace", "/", "/runs/a"]);
    expect(results.map((r) => [r.path, r.status])).toEqual([
      ["/", 401],
      ["/runs/a", 401],
    ]);
    expect(performance.now() - started).toBeLessThan(20_000); // not the readiness wait's limit
  });

  it("says in its log line why pages were not warmed: access tokens, or each failure by page", () => {
    const r = (path: string, status: number | null, error?: string) => ({ path, status, ms: 5, error });
    expect(warmUpSummary([r("/", 200), r("/search", 200)], 1234)).toBe("metron: warmed 2 of 2 pages in 1.2 s");
    expect(warmUpSummary([r("/", 401), r("/runs/a", 401)], 500)).toBe(
      "metron: warmed 0 of 2 pages in 0.5 s (access tokens are on and the warm-up carries none: pages load their code at their first signed-in request)",
    );
    expect(warmUpSummary([r("/", 200), r("/runs/a", 500), r("/search", null, "no answer")], 900)).toBe(
      "metron: warmed 1 of 3 pages in 0.9 s (not: /runs/a 500, /search no answer)",
    );
  });

  it("gives up, without throwing, when the server never answers", async () => {
    const origin = await serve((_, res) => {
      res.statusCode = 503;
      res.end();
    });
    const results = await warmUp(origin, ["/"], { readyMs: 100, pollMs: 10 });
    expect(results).toEqual([{ path: "/", status: null, ms: 0, error: "no answer" }]);
  });
});
