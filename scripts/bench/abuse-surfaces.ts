/**
 * The abuse bench's cases for the surfaces of issue 28, against a running server: decompression bombs (an `.eval`'s
 * Zstandard and deflate members, a gzip OTLP body), a flood of spans, a `db_id` that names a path, a rebinding
 * `Host`, a provider key echoed into the spans Metron exports to itself, and a damaged store. Each with its bound;
 * only loopback traffic.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { deflateRawSync, gzipSync } from "node:zlib";
import { openDb } from "@/lib/db/client";
import { zipOf, zstdRleFrame } from "@/lib/testing/zip";
import { underAttack } from "./processes";

export interface Case {
  name: string;
  bound: string;
  measured: string;
  ok: boolean;
}

const GB = 1024 ** 3;
const header = Buffer.from(JSON.stringify({ version: 2, eval: { task: "bomb", model: "m" } }));

/**
 * A POST on a connection of its own: a kept-alive socket idle while the next bomb is built (seconds) may be closed
 * by the server just as it is reused, which would fail the request for a reason that is not the server's.
 */
function post(url: string, body: Buffer | string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request(url, { method: "POST", headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

function withHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { headers: { Host: host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

/** A bomb posted while a probe runs: answered with a named error, memory and the probe within their bounds. */
async function bomb(
  name: string,
  url: string,
  pid: number,
  send: () => Promise<{ status: number; text: string }>,
  expected: { status: number; names: RegExp },
): Promise<Case> {
  const r = await underAttack(url, pid, send);
  return {
    name,
    bound: `answered ${expected.status} naming its limit; server RSS < 1024 MB; probe < 1000 ms`,
    measured: `${r.value.status} ${r.value.text.slice(0, 160)}; RSS ${r.peakRssMb.toFixed(0)} MB; probe ${r.maxProbeMs.toFixed(0)} ms`,
    ok:
      r.value.status === expected.status &&
      expected.names.test(r.value.text) &&
      r.peakRssMb < 1024 &&
      r.maxProbeMs < 1000,
  };
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");
const attr = (key: string, value: string) => ({ key, value: { stringValue: value } });

/** One OTLP/JSON export of `n` tool spans under one root of trace `t`. */
function spanFlood(t: number, n: number): string {
  const traceId = hex(t, 32);
  const spans = [
    { traceId, spanId: hex(1, 16), name: "agent", startTimeUnixNano: "1", endTimeUnixNano: String(n + 10) },
    ...Array.from({ length: n }, (_, i) => ({
      traceId,
      spanId: hex(i + 2, 16),
      parentSpanId: hex(1, 16),
      name: "execute_tool read_query",
      startTimeUnixNano: String(i + 2),
      endTimeUnixNano: String(i + 3),
      attributes: [
        attr("gen_ai.tool.name", "read_query"),
        attr("gen_ai.tool.call.arguments", `{"query":"SELECT ${i}"}`),
      ],
    })),
  ];
  return JSON.stringify({
    resourceSpans: [{ resource: { attributes: [attr("metron.run.name", `flood ${t}`)] }, scopeSpans: [{ spans }] }],
  });
}

export async function surfaceCases(opts: {
  url: string;
  pid: number;
  dir: string;
  store: string;
  /** The key the server's echoing provider sends back, and the run whose trace reruns it. */
  echo: { key: string; traceId: string };
}): Promise<Case[]> {
  const { url, pid, dir } = opts;
  const cases: Case[] = [];

  // Decompression bombs.
  const zstd = zipOf([
    { name: "header.json", method: 0, data: header },
    { name: "samples/1_epoch_1.json", method: 93, data: zstdRleFrame(7 * GB), declaredSize: 100 },
  ]);
  cases.push(
    await bomb(
      `.eval with a Zstandard member of 7 GB in ${(zstd.length / 1024).toFixed(0)} kB`,
      url,
      opts.pid,
      () => post(`${url}/api/ingest?filename=bomb.eval`, zstd),
      { status: 422, names: /METRON_MAX_DECODED_BYTES/ },
    ),
  );
  const inflated = deflateRawSync(Buffer.alloc(GB), { level: 9 });
  const deflate = zipOf([
    { name: "header.json", method: 0, data: header },
    { name: "samples/1_epoch_1.json", method: 8, data: inflated, declaredSize: 100 },
  ]);
  cases.push(
    await bomb(
      `.eval with a deflate member of 1 GB in ${(deflate.length / 1024).toFixed(0)} kB`,
      url,
      pid,
      () => post(`${url}/api/ingest?filename=bomb.eval`, deflate),
      { status: 422, names: /METRON_MAX_DECODED_BYTES/ },
    ),
  );
  const gz = gzipSync(Buffer.alloc(2 * GB - 1), { level: 9 });
  cases.push(
    await bomb(
      `OTLP export of 2 GB in ${(gz.length / 1024).toFixed(0)} kB of gzip`,
      url,
      pid,
      () => post(`${url}/v1/traces`, gz, { "Content-Type": "application/json", "Content-Encoding": "gzip" }),
      { status: 413, names: /METRON_OTLP_MAX_BYTES/ },
    ),
  );
  cases.push(
    await bomb(
      "OTLP export of 30,000 spans in one request",
      url,
      pid,
      () => post(`${url}/v1/traces`, spanFlood(1, 30_000), { "Content-Type": "application/json" }),
      { status: 413, names: /METRON_OTLP_MAX_SPANS/ },
    ),
  );
  // The most one request may carry, and one trace: taken, stored, and the server answers meanwhile.
  const flood = await underAttack(url, pid, () =>
    post(`${url}/v1/traces`, spanFlood(2, 19_999), { "Content-Type": "application/json" }),
  );
  cases.push({
    name: "OTLP export of 20,000 spans of one trace (the limit)",
    bound: "stored (200); probe < 1000 ms; RSS < 1024 MB",
    measured: `${flood.value.status}; RSS ${flood.peakRssMb.toFixed(0)} MB; probe ${flood.maxProbeMs.toFixed(0)} ms`,
    ok: flood.value.status === 200 && flood.maxProbeMs < 1000 && flood.peakRssMb < 1024,
  });

  // A db_id that names a path.
  const victim = path.join(mkdtempSync(path.join(dir, "victim-")), "victim.sqlite");
  writeFileSync(victim, "the lab's benchmark database");
  const upload = randomUUID();
  const dbId = path.relative(path.join(path.dirname(opts.store), "databases", "evil"), victim.replace(/\.sqlite$/, ""));
  const tables = JSON.stringify([
    {
      db_id: dbId,
      table_names_original: ["t"],
      table_names: ["t"],
      column_names_original: [
        [-1, "*"],
        [0, "a"],
      ],
      column_names: [
        [-1, "*"],
        [0, "a"],
      ],
      column_types: ["text", "text"],
      primary_keys: [],
      foreign_keys: [],
    },
  ]);
  const questions = JSON.stringify([{ db_id: dbId, question: "Wie viele?", query: "SELECT 1" }]);
  await post(`${url}/api/datasets/files?upload=${upload}&kind=tables&name=tables.json`, tables);
  await post(`${url}/api/datasets/files?upload=${upload}&kind=questions&name=dev.json`, questions);
  const imported = await post(`${url}/api/datasets`, JSON.stringify({ upload, name: "evil", format: "spider" }), {
    "Content-Type": "application/json",
  });
  const untouched = readFileSync(victim, "utf8") === "the lab's benchmark database";
  cases.push({
    name: "tables.json whose db_id leads out of the store's folder",
    bound: "refused (400) naming the field; the file outside is unchanged",
    measured: `${imported.status} ${imported.text.slice(0, 160)}; victim unchanged: ${untouched}`,
    ok: imported.status === 400 && /db_id/.test(imported.text) && untouched,
  });

  // DNS rebinding.
  const port = new URL(url).port;
  const rebound = await withHost(`${url}/api/export/overview.csv`, `rebind.attacker.example:${port}`);
  const own = await withHost(`${url}/api/export/overview.csv`, `localhost:${port}`);
  cases.push({
    name: "a request under a rebinding host name",
    bound: "421 for the foreign Host, 200 for localhost",
    measured: `${rebound} / ${own}`,
    ok: rebound === 421 && own === 200,
  });

  // A provider that echoes its key, with the spans exported to this same server's /v1/traces.
  const started = await post(
    `${url}/api/reruns`,
    JSON.stringify({ traceId: opts.echo.traceId, provider: "compatible", model: "echo-model", variant: "none" }),
    { "Content-Type": "application/json" },
  );
  let exported = 0;
  let leaked = true;
  for (let i = 0; i < 60; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    const db = openDb(opts.store);
    try {
      // The rerun's spans (the floods above were traces 1 and 2).
      exported = (
        db.$client
          .prepare("SELECT count(*) AS n FROM otlp_spans WHERE trace_id NOT IN (?, ?)")
          .get(hex(1, 32), hex(2, 32)) as { n: number }
      ).n;
      const dump = ["otlp_spans", "traces", "steps", "blobs", "jobs"]
        .map((t) => JSON.stringify(db.$client.prepare(`SELECT * FROM ${t}`).all()))
        .join("\n");
      leaked = dump.includes(opts.echo.key) || dump.includes(opts.echo.key.slice(0, 16));
      const assembled = (
        db.$client.prepare("SELECT count(*) AS n FROM otlp_groups WHERE assembled_at IS NOT NULL").get() as {
          n: number;
        }
      ).n;
      if (exported > 0 && assembled > 1) break;
    } finally {
      db.$client.close();
    }
  }
  const csv = await fetch(`${url}/api/export/overview.csv`).then((r) => r.text());
  cases.push({
    name: "a provider that echoes its key; Metron's own spans exported to its /v1/traces",
    bound: "the spans arrive, and the key is nowhere in the store or the exports",
    measured: `rerun ${started.status}; ${exported} spans received; key found: ${leaked || csv.includes(opts.echo.key)}`,
    ok: started.status === 200 && exported > 0 && !leaked && !csv.includes(opts.echo.key),
  });
  return cases;
}

/** A server on a file that is not a store: its pages say so, and what to do. */
export async function damagedStoreCase(
  start: (store: string) => Promise<{ url: string; stop: () => void }>,
  dir: string,
): Promise<Case> {
  const file = path.join(dir, "damaged.db");
  writeFileSync(file, "not a SQLite file ".repeat(1000));
  const server = await start(file);
  try {
    const res = await fetch(`${server.url}/`);
    const html = await res.text();
    const named = html.includes("The store is not usable") && html.includes("SQLITE_NOTADB");
    return {
      name: "a server whose store file is damaged",
      bound: "every page names the problem and what to do (not a bare error)",
      measured: `${res.status}; the page names it: ${named}`,
      ok: named,
    };
  } finally {
    server.stop();
  }
}
