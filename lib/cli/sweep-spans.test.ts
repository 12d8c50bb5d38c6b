/**
 * A CLI sweep with an OTLP endpoint configured sends its agent spans before the process exits: a short sweep ends
 * long before the batch processor's five-second schedule, and the spans still buffered were lost with the process.
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDb } from "@/lib/testing/db";
import { importSpiderDe } from "@/lib/testing/spider-de";

const ROOT = path.resolve(import.meta.dirname, "..", "..");

describe("metron sweep with OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  const store = tempDb();
  let server: Server;
  const posts: { path: string; bytes: number }[] = [];
  beforeAll(async () => {
    await importSpiderDe(store);
    server = createServer((req, res) => {
      let bytes = 0;
      req.on("data", (c: Buffer) => (bytes += c.length));
      req.on("end", () => {
        posts.push({ path: req.url ?? "", bytes });
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  }, 120_000);
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    store.cleanup();
  });

  it("exports the sweep's spans before it exits", async () => {
    const port = (server.address() as AddressInfo).port;
    // Spawned without waiting synchronously: the OTLP receiver above runs in this process.
    const child = spawn(
      process.execPath,
      [
        path.join(ROOT, "scripts", "metron.mjs"),
        "sweep",
        "--dataset",
        "spider-de",
        "--questions",
        "0,1",
        "--model",
        "sim-careful",
      ],
      {
        env: {
          ...process.env,
          DATABASE_PATH: store.file,
          METRON_SIM_STEP_DELAY_MS: "0",
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        },
      },
    );
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((r) => child.on("exit", r));
    expect(code, stderr).toBe(0);
    const traces = posts.filter((p) => p.path === "/v1/traces");
    expect(traces.length).toBeGreaterThan(0);
    expect(traces.reduce((s, p) => s + p.bytes, 0)).toBeGreaterThan(100);
  }, 180_000);
});
