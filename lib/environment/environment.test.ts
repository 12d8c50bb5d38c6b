import { DEFAULT_PARAMS } from "./directives/computed";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { spawn } from "node:child_process";
import { request } from "node:http";
import { createReadStream, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqlSandbox } from "@/lib/sandbox/sandbox";
import { ingestAuto } from "@/lib/ingest/ingest-auto";
import type { Sql } from "@/lib/db/sql";
import { ENGINES, engineStore, type EngineStore } from "@/lib/testing/engines";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { loadQuestionFrom } from "./database-info";
import { directivesFor } from "./directives";
import { SqlEnvironment } from "./tools";
import { many, one, raw } from "@/lib/db/typed";

const ROOT = path.resolve(import.meta.dirname, "..", "..");

describe.each(ENGINES)("on the %s store", (engine) => {
  let store: EngineStore;
  let sqlite: Sql;
  /** What a `metron` process needs to reach the store. */
  let storeEnv: Record<string, string>;
  beforeAll(async () => {
    store = await engineStore(engine);
    storeEnv = store.env;
    sqlite = store.sql;
    await importSpiderDe(store);
  }, 120_000);
  afterAll(() => store.cleanup());

  describe("metron evaluate on a runaway prediction", () => {
    it("reports the time-out and exits when it is done", async () => {
      const file = path.join(store.dir, "runaway.jsonl");
      writeFileSync(
        file,
        JSON.stringify({
          run: { name: "runaway", system: "s", model: "m", benchmark: "spider-de" },
          question: { id: "0" },
          steps: [],
          final_sql: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
        }) + "\n",
      );
      await ingestAuto(sqlite, createReadStream(file));
      const started = Date.now();
      const child = spawn(
        process.execPath,
        [path.join(ROOT, "scripts", "metron.mjs"), "evaluate", "--run", "runaway", "--json"],
        {
          env: { ...process.env, ...storeEnv, METRON_SQL_TIMEOUT_MS: "1000" },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
      expect(code).toBe(0);
      expect(JSON.parse(out)).toMatchObject({ timeout: 1 });
      expect(Date.now() - started).toBeLessThan(20_000); // tsx start-up included; it used to never exit
    }, 30_000);
  });

  describe("the environment's tools on a real Spider-de database", () => {
    it("answers each tool, refuses writes, stops a runaway query, accepts one submission", async () => {
      const { question, database } = await loadQuestionFrom(sqlite, "spider-de", "22");
      const sandbox = new SqlSandbox({ timeoutMs: 1500, maxRows: 1001 });
      const env = new SqlEnvironment(question, database, { variant: "none", directives: null, sandbox });
      expect((await env.call("list_tables", {})).split("\n").sort()).toEqual([
        "konzert",
        "stadion",
        "sänger",
        "sänger_im_konzert",
      ]);
      const described = await env.call("describe_table", { table_name: "SÄNGER" });
      expect(described).toMatch(/^Table sänger \(6 rows\)/);
      expect(described).toContain("- sänger_id INT PRIMARY KEY");
      expect(described).toContain("Sample rows:");
      expect(await env.call("describe_table", { table_name: "nirgendwo" })).toMatch(
        /^Error: no table named "nirgendwo"/,
      );
      expect(await env.call("get_join_info", {})).toContain("konzert.stadion_id = stadion.stadion_id");
      const read = await env.call("read_query", { query: "SELECT name FROM sänger ORDER BY name", max_rows: 2 });
      expect(read.split("\n")).toHaveLength(4);
      expect(read).toContain("more rows were cut");
      expect(await env.call("read_query", { query: "DELETE FROM sänger" })).toMatch(/^Error: refused/);
      expect(
        await env.call("read_query", {
          query: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
        }),
      ).toMatch(/time limit/);
      expect(await env.call("read_query", { query: 42 })).toMatch(/^Error: invalid arguments: query/);
      const long = await env.call("read_query", { query: "SELECT replace(zeroblob(200000), x'00', 'a') AS long_text" });
      expect(long.length).toBeLessThan(100_300);
      expect(long).toMatch(/result cut at 100000 of \d+ characters \(METRON_TOOL_RESULT_MAX_CHARS\)/);
      expect(await env.call("submit_final_query", { query: "SELECT 1" })).toBe("Final query accepted.");
      expect(await env.call("submit_final_query", { query: "SELECT 2" })).toMatch(/already submitted/);
      expect(env.finalSql).toBe("SELECT 1");
      expect(env.steps.map((s) => Boolean(s.error))).toEqual([
        false,
        false,
        true,
        false,
        false,
        true,
        true,
        true,
        false,
        false,
        true,
      ]);
      await sandbox.close();
    });

    it("directives: oracle flags the complement of the gold tables; computed keeps an easy question's gold tables and says so in list_tables", async () => {
      const { question, database } = await loadQuestionFrom(sqlite, "spider-de", "22");
      expect((await directivesFor("oracle", question, database))!.irrelevant.sort()).toEqual([
        "sänger",
        "sänger_im_konzert",
      ]);
      const easy = await loadQuestionFrom(sqlite, "spider-de", "0"); // Wie viele Sängerinnen und Sänger haben wir? → sänger
      const computed = (await directivesFor("computed", easy.question, easy.database, {
        indexDir: path.join(store.dir, "indexes"),
      }))!;
      // Only the gold table is kept: a second table per phrase needs a near tie (the cross-validated default).
      expect(computed.irrelevant.sort()).toEqual(["konzert", "stadion", "sänger_im_konzert"]);
      expect(computed.explanation).toMatchObject({ strategy: "computed", phrase_source: "keywords" });
      const env = new SqlEnvironment(easy.question, easy.database, { variant: "computed", directives: computed });
      const listed = await env.call("list_tables", {});
      expect(listed).toContain("## Directives");
      expect(listed.split("## Directives")[1]).toContain("sänger_im_konzert");
      expect((env.trace().directives as { at_step?: number }).at_step).toBe(0);
      await env.close();
      expect(await directivesFor("none", question, database)).toBeNull();
    });

    it("computed directives keep tables named inside German compounds and tables holding a value the question names", async () => {
      const indexDir = path.join(store.dir, "indexes");
      const stadium = await loadQuestionFrom(sqlite, "spider-de", "28"); // Zeige die Stadionnamen ohne Konzert.
      const withParts = (await directivesFor("computed", stadium.question, stadium.database, { indexDir }))!;
      expect(withParts.irrelevant).not.toContain("stadion");
      expect(withParts.explanation.compound_parts).toContain("stadion");
      const france = await loadQuestionFrom(sqlite, "spider-de", "113"); // Wie viele Autohersteller gibt es in "france"?
      const withValues = (await directivesFor("computed", france.question, france.database, { indexDir }))!;
      expect(withValues.explanation.value_hits).toEqual({ france: ["länder"] });
      expect(withValues.irrelevant).not.toContain("länder");
      const without = (await directivesFor("computed", france.question, france.database, {
        indexDir,
        params: { ...DEFAULT_PARAMS, matchValues: false },
      }))!;
      expect(without.irrelevant).toContain("länder");
    });
  });

  async function useAllTools(client: Client) {
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual(["describe_table", "get_join_info", "list_tables", "read_query", "submit_final_query"]);
    const text = (r: unknown) => (r as { content: { text: string }[] }).content[0].text;
    expect(text(await client.callTool({ name: "list_tables", arguments: {} }))).toContain("## Directives");
    expect(text(await client.callTool({ name: "describe_table", arguments: { table_name: "konzert" } }))).toContain(
      "Table konzert",
    );
    expect(text(await client.callTool({ name: "describe_table", arguments: { table_name: "sänger" } }))).toContain(
      "Table sänger",
    );
    expect(text(await client.callTool({ name: "get_join_info", arguments: {} }))).toContain("=");
    expect(
      text(await client.callTool({ name: "read_query", arguments: { query: "PRAGMA table_info(stadion)" } })),
    ).toContain("name");
    expect(
      text(
        await client.callTool({
          name: "submit_final_query",
          arguments: {
            query:
              "SELECT T2.name, count(*) FROM konzert AS T1 JOIN stadion AS T2 ON T1.stadion_id = T2.stadion_id GROUP BY T1.stadion_id",
          },
        }),
      ),
    ).toBe("Final query accepted.");
  }

  async function ingestTrace(file: string, run: string) {
    expect(existsSync(file)).toBe(true);
    const report = await ingestAuto(sqlite, createReadStream(file), { defaults: { name: run } });
    expect(report).toMatchObject({ format: "canonical", inserted: 1, error_count: 0 });
    return (await one(
      sqlite,
      raw`SELECT t.*, r.system FROM traces t JOIN runs r ON r.id = t.run_id WHERE r.name = ${run}`,
    )) as Record<string, unknown>;
  }

  describe("the MCP server", () => {
    let env: Record<string, string>;
    let childEnv: NodeJS.ProcessEnv;
    beforeAll(() => {
      env = { ...process.env, ...storeEnv } as Record<string, string>;
      childEnv = env as NodeJS.ProcessEnv;
    });

    it("serves the five tools over stdio and leaves a trace that ingests with the right metrics", async () => {
      const traceOut = path.join(store.dir, "stdio.jsonl");
      const client = new Client({ name: "test", version: "1.0.0" });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [
            path.join(ROOT, "scripts", "metron.mjs"),
            "mcp",
            "--dataset",
            "spider-de",
            "--question",
            "22",
            "--variant",
            "oracle",
            "--trace-out",
            traceOut,
            "--run",
            "mcp stdio",
          ],
          env,
          stderr: "ignore",
        }),
      );
      await useAllTools(client);
      await client.close();
      const t = await ingestTrace(traceOut, "mcp stdio");
      // describe konzert (gold), describe sänger (flagged), PRAGMA table_info(stadion) (gold): 3 exploratory against 2 gold.
      expect(t).toMatchObject({
        system: "Sophrosyne-Oracle",
        question_id: "22",
        exploratory_calls: 3,
        gold_count: 2,
        over_exploration: 1,
        violation_count: 1,
        directive_recall: 1,
        extra_table_count: 0,
        step_count: 6,
      });
      expect(JSON.parse(t.directives as string)).toMatchObject({
        strategy: "oracle",
        irrelevant_tables: ["sänger", "sänger_im_konzert"],
        at_step: 0,
      });
    });

    it("serves them over streamable HTTP on 127.0.0.1", async () => {
      const traceOut = path.join(store.dir, "http.jsonl");
      const child = spawn(
        process.execPath,
        [
          path.join(ROOT, "scripts", "metron.mjs"),
          "mcp",
          "--dataset",
          "spider-de",
          "--question",
          "22",
          "--variant",
          "oracle",
          "--trace-out",
          traceOut,
          "--run",
          "mcp http",
          "--http",
          "0",
        ],
        { env: childEnv, stdio: ["ignore", "ignore", "pipe"] },
      );
      const url = await new Promise<string>((resolve, reject) => {
        let err = "";
        child.stderr.on("data", (d) => {
          err += d;
          const m = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
          if (m) resolve(m[1]);
        });
        child.on("exit", () => reject(new Error(err)));
      });
      // A client that only lists the tools (as `opencode mcp list` and Codex at start do) leaves no trace; the
      // tools say which only read, for the clients that decide on approval by it.
      const lister = new Client({ name: "lister", version: "1.0.0" });
      await lister.connect(new StreamableHTTPClientTransport(new URL(url)));
      const { tools } = await lister.listTools();
      expect(Object.fromEntries(tools.map((t) => [t.name, t.annotations?.readOnlyHint]))).toEqual({
        list_tables: true,
        describe_table: true,
        get_join_info: true,
        read_query: true,
        submit_final_query: false,
      });
      expect(tools.every((t) => t.annotations?.destructiveHint === false)).toBe(true);
      await lister.close();
      // Two clients at once, each in its own session: its own environment, its own trace.
      const client = new Client({ name: "test", version: "1.0.0" });
      const other = new Client({ name: "other", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      await other.connect(new StreamableHTTPClientTransport(new URL(url)));
      await other.callTool({ name: "list_tables", arguments: {} });
      await useAllTools(client);
      await other.callTool({ name: "submit_final_query", arguments: { query: "SELECT 1" } });
      await client.close();
      await other.close();
      // DNS rebinding: another Host or Origin is refused.
      const port = new URL(url).port;
      const post = (headers: Record<string, string>) =>
        new Promise<number>((resolve) => {
          const req = request(
            {
              host: "127.0.0.1",
              port,
              path: "/mcp",
              method: "POST",
              headers: { "Content-Type": "application/json", ...headers },
            },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.end("{}");
        });
      expect(await post({ Host: `evil.example:${port}` })).toBe(403);
      expect(await post({ Origin: "http://evil.example" })).toBe(403);
      child.kill("SIGTERM");
      const lines = readFileSync(traceOut, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { kind: string; trace_id: string });
      expect(lines.filter((l) => l.kind === "trace")).toHaveLength(2); // the lister wrote none
      expect(lines).toHaveLength(2 + 6 + 2);
      const report = await ingestAuto(sqlite, createReadStream(traceOut), { defaults: { name: "mcp http" } });
      expect(report).toMatchObject({ inserted: 2, error_count: 0 });
      const traces = (await many(
        sqlite,
        raw`SELECT t.final_sql, t.exploratory_calls, t.gold_count, t.step_count FROM traces t JOIN runs r ON r.id = t.run_id WHERE r.name = 'mcp http' ORDER BY t.step_count`,
      )) as { final_sql: string; exploratory_calls: number; gold_count: number; step_count: number }[];
      expect(traces).toMatchObject([
        { final_sql: "SELECT 1", step_count: 2, gold_count: 2 },
        {
          exploratory_calls: 3,
          gold_count: 2,
          step_count: 6,
          final_sql: expect.stringContaining("GROUP BY T1.stadion_id"),
        },
      ]);
    });
  });
});
