/**
 * `npm run bench -- abuse [--json] [--cli-files N] [--cli-mb M]`: replays the availability attacks of issue 13
 * against the built app on a fresh store with the simulated demo (its database has rows), each with its bound:
 * - memory: final SQL `SELECT zeroblob(5e8)` over 1,001 rows, its results requested: server RSS < 1 GB;
 * - runaway: a recursive CTE past the time limit (set to 3 s here): its worker's CPU stops within 2 s of it;
 * - quadratic: a 4 MB final SQL (whitespace runs, double-quoted words) renders its question page in < 1 s;
 * - liveness: while each attack runs, a probe request answers within 1 s;
 * - locks: a stalled upload does not block a CLI ingest; N concurrent CLI ingests of M MB files all succeed;
 * - nesting: a 5,000-deep line in an upload fails alone;
 * - the surfaces of issue 28 (abuse-surfaces.ts): decompression bombs, span floods, a db_id path, a rebinding Host,
 *   an echoed key in exported spans, a damaged store.
 * Only loopback traffic; every loop is bounded.
 */
import { asSql } from "@/lib/db/sql";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { openDb } from "@/lib/db/client";
import { seedDemo } from "@/lib/demo/seed";
import { randomUUID } from "node:crypto";
import { startFakeOpenAI } from "@/lib/testing/fake-openai";
import { damagedStoreCase, surfaceCases } from "./abuse-surfaces";
import { underAttack, workerTicks } from "./processes";
import { ROOT, startServer } from "./server";
import { syntheticTraceLine } from "./synthetic";

const PORT = 3457;

interface Case {
  name: string;
  bound: string;
  measured: string;
  ok: boolean;
}

function cli(store: string, args: string[]): Promise<{ code: number | null; ms: number; out: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, "scripts", "metron.mjs"), ...args], {
      env: { ...process.env, DATABASE_PATH: store },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("exit", (code) => resolve({ code, ms: performance.now() - started, out }));
  });
}

export async function benchAbuse(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      json: { type: "boolean", default: false },
      "cli-files": { type: "string", default: "8" },
      "cli-mb": { type: "string", default: "35" },
    },
  });
  const dir = mkdtempSync(path.join(tmpdir(), "metron-abuse-"));
  const store = path.join(dir, "metron.db");
  const cases: Case[] = [];
  process.env.DATABASE_PATH = store;
  const db = openDb(store);
  await seedDemo(asSql(db.$client), { dir: path.join(dir, "demo") });
  const run = { name: "abuse", system: "attacker", model: "none", benchmark: "demo-retail" };
  const spaces = (n: number) => " ".repeat(n);
  const hugeSql = `SELECT ${Array.from({ length: 20_000 }, (_, i) => `"w${i}"${spaces(180)}`).join(",")} FROM customers`;
  const traces = [
    {
      run,
      question: { id: "1" },
      steps: [],
      final_sql:
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 1001) SELECT zeroblob(5e8) FROM c",
    },
    {
      run,
      question: { id: "2" },
      steps: [],
      final_sql: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
    },
    {
      run,
      question: { id: "3" },
      steps: [{ type: "tool_call", tool: "read_query", args: { query: hugeSql } }],
      final_sql: hugeSql,
    },
  ];
  const { ingestStream } = await import("@/lib/ingest/ingest");
  const report = await ingestStream(
    asSql(db.$client),
    (async function* () {
      yield Buffer.from(traces.map((t) => JSON.stringify(t)).join("\n") + "\n");
    })(),
  );
  const ids = db.$client.prepare("SELECT id, question_id AS q FROM traces WHERE run_id = ?").all(report.runs[0].id) as {
    id: string;
    q: string;
  }[];
  const idOf = (q: string) => ids.find((r) => r.q === q)!.id;
  db.$client.close();

  process.env.METRON_SQL_TIMEOUT_MS = "3000";
  process.env.METRON_UPLOAD_IDLE_MS = "5000";
  // A provider that echoes its key, and the server's own spans exported to its /v1/traces (abuse-surfaces.ts).
  const echoKey = `sk-abuse-${randomUUID()}`;
  const fake = await startFakeOpenAI([
    { toolCalls: [{ name: "list_tables", args: {} }], usage: { prompt: 10, completion: 2 } },
    { error: 401, message: `Incorrect API key provided: ${echoKey}. Authorization: Bearer ${echoKey}` },
  ]);
  process.env.METRON_OPENAI_COMPATIBLE_URL = fake.url;
  process.env.METRON_OPENAI_COMPATIBLE_KEY = echoKey;
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${PORT}`;
  process.env.OTEL_EXPORTER_OTLP_PROTOCOL = "http/json";
  const server = await startServer(store, PORT);
  const pid = server.child.pid!;
  try {
    // Memory.
    const mem = await underAttack(server.url, pid, () =>
      fetch(`${server.url}/api/traces/${idOf("1")}/results`, { method: "POST" }).then((r) => r.json()),
    );
    cases.push({
      name: "zeroblob(5e8) × 1,001 rows: results",
      bound: "server RSS < 1024 MB; probe < 1000 ms; error names the limit",
      measured: `RSS ${mem.peakRssMb.toFixed(0)} MB, probe ${mem.maxProbeMs.toFixed(0)} ms, ${JSON.stringify(mem.value).match(/out of memory[^"]*|METRON_SQL_\w+/)?.[0] ?? `no limit named: ${JSON.stringify(mem.value).slice(0, 300)}`}`,
      ok: mem.peakRssMb < 1024 && mem.maxProbeMs < 1000 && /out of memory|METRON_SQL/.test(JSON.stringify(mem.value)),
    });

    // Runaway.
    const runaway = await underAttack(server.url, pid, async () => {
      const started = performance.now();
      const body = await fetch(`${server.url}/api/traces/${idOf("2")}/results`, { method: "POST" }).then((r) =>
        r.json(),
      );
      const answeredMs = performance.now() - started;
      await new Promise((r) => setTimeout(r, 2000));
      const before = workerTicks(pid);
      await new Promise((r) => setTimeout(r, 1000));
      return { body, answeredMs, cpuTicksPerSecondAfter: workerTicks(pid) - before };
    });
    cases.push({
      name: "recursive CTE past a 3 s limit",
      bound: "worker CPU idle 2 s after the limit (< 10 ticks/s); probe < 1000 ms",
      measured: `answered in ${(runaway.value.answeredMs / 1000).toFixed(1)} s, worker CPU after: ${runaway.value.cpuTicksPerSecondAfter} ticks/s, probe ${runaway.maxProbeMs.toFixed(0)} ms`,
      ok: runaway.value.cpuTicksPerSecondAfter < 10 && runaway.maxProbeMs < 1000,
    });

    // Quadratic paths.
    const page = await underAttack(server.url, pid, async () => {
      const started = performance.now();
      const res = await fetch(`${server.url}/runs/${report.runs[0].id}/questions/3?step=0`);
      const html = await res.text();
      return {
        ms: performance.now() - started,
        status: res.status,
        html: html.length,
        cut: html.includes("Showing the first"),
        // In the HTML, and in React's payload (the opened step is a client component's props: quotes escaped).
        links: [
          ...new Set(
            [...html.matchAll(/href=\\?"(\/api\/traces\/[^"\\]+\/text\?(?:[^"\\]|\\u0026)+)\\?"/g)].map((m) =>
              m[1].replaceAll("\\u0026", "&").replaceAll("&#38;", "&"),
            ),
          ),
        ],
      };
    });
    // The page shows the start of each text; the whole of it is one link away: the final SQL, and the opened step's
    // arguments (the same query).
    const fetchText = (href: string) => fetch(`${server.url}${href}`).then((r) => r.text());
    const whole = await fetchText(`/api/traces/${idOf("3")}/text?field=final_sql`);
    const linked = await Promise.all(page.value.links.map(fetchText));
    const linksWhole =
      page.value.links.some((l) => l.includes("field=final_sql")) &&
      page.value.links.some((l) => l.includes("field=args&seq=0")) &&
      linked.every((t) => t === hugeSql || (JSON.parse(t) as { query?: string }).query === hugeSql);
    cases.push({
      name: "4 MB final SQL: question page",
      bound: "page < 1000 ms; probe < 1000 ms; the whole text behind its link",
      measured: `${page.value.status} in ${page.value.ms.toFixed(0)} ms, ${(page.value.html / 1e6).toFixed(1)} MB of HTML (text cut: ${page.value.cut}), whole text ${(whole.length / 1e6).toFixed(1)} M characters, ${page.value.links.length} links to whole texts (all whole: ${linksWhole}), probe ${page.maxProbeMs.toFixed(0)} ms`,
      ok:
        page.value.status === 200 &&
        page.value.ms < 1000 &&
        page.maxProbeMs < 1000 &&
        page.value.cut &&
        whole === hugeSql &&
        linksWhole,
    });

    // A stalled upload against a CLI ingest.
    const small = path.join(dir, "small.jsonl");
    writeFileSync(
      small,
      Array.from({ length: 200 }, (_, i) =>
        syntheticTraceLine(100_000 + i, 10, { name: "cli during stall", system: "s", model: "m" }),
      ).join("\n") + "\n",
    );
    const stalled = http.request(`${server.url}/api/ingest?filename=stall.jsonl`, {
      method: "POST",
      headers: { "Content-Type": "application/x-ndjson" },
    });
    const stalledStatus = new Promise<number>((resolve) => {
      stalled.on("response", (r) => {
        resolve(r.statusCode ?? 0);
        r.resume();
      });
      stalled.on("error", () => resolve(-1));
    });
    stalled.write(Buffer.from(syntheticTraceLine(1, 10) + "\n").subarray(0, 60_000));
    const during = await cli(store, ["ingest", small, "--json"]);
    const status = await stalledStatus;
    cases.push({
      name: "stalled upload, then a CLI ingest",
      bound: "CLI ingest succeeds while the upload stalls; the upload gets 408",
      measured: `CLI exit ${during.code} in ${(during.ms / 1000).toFixed(1)} s; upload answered ${status}`,
      ok: during.code === 0 && status === 408,
    });

    // Concurrent CLI ingests.
    const n = Number(values["cli-files"]);
    const mb = Number(values["cli-mb"]);
    const files = Array.from({ length: n }, (_, f) => {
      const file = path.join(dir, `bulk-${f}.jsonl`);
      const lines: string[] = [];
      let bytes = 0;
      for (let i = 0; bytes < mb * 1024 * 1024; i++) {
        const l = syntheticTraceLine(f * 1_000_000 + i, 40, { name: `bulk ${f}`, system: "s", model: "m" });
        lines.push(l);
        bytes += l.length + 1;
      }
      writeFileSync(file, lines.join("\n") + "\n");
      return file;
    });
    const concurrent = await underAttack(server.url, pid, () =>
      Promise.all(files.map((f) => cli(store, ["ingest", f, "--json"]))),
    );
    const failed = concurrent.value.filter((r) => r.code !== 0);
    cases.push({
      name: `${n} concurrent CLI ingests of ${mb} MB`,
      bound: "all succeed; probe < 1000 ms",
      measured: `${n - failed.length}/${n} succeeded, slowest ${(Math.max(...concurrent.value.map((r) => r.ms)) / 1000).toFixed(1)} s, probe ${concurrent.maxProbeMs.toFixed(0)} ms${failed.length ? `: ${failed[0].out.slice(-200)}` : ""}`,
      ok: failed.length === 0 && concurrent.maxProbeMs < 1000,
    });

    // Nesting.
    const deepLine = JSON.stringify({
      run: { name: "deep", system: "s", model: "m" },
      question: { id: "d" },
      steps: [],
      meta: { deep: "@@" },
    }).replace('"@@"', `${'{"d":'.repeat(5000)}0${"}".repeat(5000)}`);
    const nested = (await fetch(`${server.url}/api/ingest?filename=deep.jsonl`, {
      method: "POST",
      body: [syntheticTraceLine(7, 5), deepLine, syntheticTraceLine(8, 5)].join("\n") + "\n",
    }).then((r) => r.json())) as { inserted: number; errors: { line: number }[] };
    cases.push({
      name: "a 5,000-deep line in an upload",
      bound: "fails alone with its line number",
      measured: `${nested.inserted} stored, errors on lines ${nested.errors?.map((e) => e.line).join(",")}`,
      ok: nested.inserted === 2 && nested.errors?.length === 1 && nested.errors[0].line === 2,
    });
    cases.push(
      ...(await surfaceCases({ url: server.url, pid, dir, store, echo: { key: echoKey, traceId: idOf("1") } })),
    );
  } finally {
    server.stop();
    await fake.close();
  }
  try {
    for (const k of ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL"]) delete process.env[k];
    cases.push(await damagedStoreCase((file) => startServer(file, PORT + 1), dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (values.json) console.log(JSON.stringify(cases, null, 2));
  else
    for (const c of cases)
      console.log(`${c.ok ? "ok  " : "FAIL"} ${c.name}\n     bound: ${c.bound}\n     measured: ${c.measured}`);
  return cases.every((c) => c.ok) ? 0 : 1;
}
