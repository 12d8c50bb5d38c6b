/** `metron <command>`: dispatch. Each command prints JSON on stdout with --json, text otherwise. */
import { UsageError } from "./args";
import { discardWarmWorker } from "@/lib/ingest/in-worker";
import { startIngestWorkerAhead } from "./ingest-ahead";

// Each command's modules load only when it runs: `metron --help` and `metron sql tables` do not pay for the AI SDK,
// shiki, the MCP SDK or the migrations.
const USAGE = `usage: metron <command> [options]

commands:
  migrate
      create the store if needed and apply the migrations
  doctor [--json]
      check that the store can be opened and, for a SQLite file, that its pages are sound (quick_check); says what
      to do about what it finds; exit code 1 when something is wrong
  backup FILE
      a consistent copy of the store (SQLite's online backup), while the server runs
  export DIR [--json] · import DIR [--json] · export --format parquet DIR [--run R]
      write the store as JSON lines with a manifest of counts and SHA-256 sums; read such a folder into a new, empty
      store in one transaction, checking every count and sum (the search index is rebuilt by the server)
  ingest FILE… [--run NAME] [--system S] [--model M] [--benchmark B] [--dataset D] [--roles FILE]
              [--format auto|canonical|openai-messages|anthropic-messages|opencode|claude-code|codex|livesqlbench|
                        inspect|atif|otlp|spider-agent-react|bird-interact|mac-sql]
              [--question ID] [--json]
      ingest trace files (the format is detected from the content); --json prints the report
  dataset import --name N --format bird|spider|spider2-lite --questions F
                 (--databases DIR | --tables tables.json | --ddl DIR) [--descriptions DIR] [--gold DIR] [--json]
      import a benchmark's questions and databases; computes gold tables
  sql tables [--db FILE] (--sql "…" | --file queries.jsonl) [--method scan|parser] [--json]
      the tables a query reads, by EXPLAIN against FILE, else by the fast scan (or the parser); --file reads one
      query per line (a JSON string, or an object with "sql"/"query" and an optional "id") and prints one result per line
  evaluate --run R [--mode set|bag|ordered|order-aware|spider2] [--numeric exact|sig10] [--json]
      execution accuracy of a run's final SQL against the gold SQL
  mcp --dataset NAME --question ID [--variant none|computed|oracle] [--trace-out FILE] [--http PORT]
      serve the five environment tools for one question over MCP (stdio, or HTTP on 127.0.0.1)
  demo [--force] [--json]
      seed the simulated demo (a generated retail database, 42 questions, 3 variants × 2 simulated models)
  recompute (--run R … | --all) [--json]
      recompute the per-trace metrics (after a dataset, role mapping or price change)
  run edit RUN [--name N] [--system S] [--model M] [--dataset D|none] [--roles FILE] [--tags a,b] [--description T] [--json]
      fix a run after upload: identity, dataset link (traces relinked and measured again), tool roles (recomputed)
  run archive|unarchive RUN [--json]     hide a run from lists and figures (kept), or show it again
  run delete RUN --yes [--json]          delete a run, its traces, steps and unreferenced results
  run promote TRACE --into NAME [--json] a rerun's trace into a run of its system and model (it then counts there)
  sweep --dataset D (--from-run R --failing | --questions a,b | --all) (--provider P --model M[,M…] | --harness H[,H…])
        [--variant V[,V…]] [--samples K] [--concurrency N] [--max-cost USD] [--max-tokens N]
        [--max-minutes M] [--max-steps N] [--name N] [--experiment NAME] [--detach] [--json]
      run a variant over many questions into a new run (this process works it; --detach leaves it to the server);
      --harness runs each question through a harness profile (METRON_HARNESSES); several variants, models or
      harnesses make a grid: one run each, saved as one experiment
  worker [--concurrency N]
      a dedicated job worker: takes queued sweep jobs and reruns from the store until stopped (run several beside a
      server started with METRON_WORKERS=0; Ctrl-C puts its running jobs back in the queue)
  search "QUERY" [--limit N] [--json]
      full-text search of traces: words, "phrases", tool: table: role: outcome: system: model: run: dataset: db: label:
  label set|unset TRACE LABEL [--step N] · label note TRACE TEXT [--step N]
  label list [--run R] [--json] · label export [--run R] > labels.jsonl · label import FILE [--json]
  label cause --run R LABEL     a failure cause of the run's own, offered beside the preset ones
      labels and notes for error analysis (failure causes: docs/search.md)
  score set TRACE NAME VALUE [--step N] [--source S] [--comment C] · score import FILE [--json]
  score export [--run R] > scores.jsonl · score list --run R [--json]
      custom scores on traces: a number, true/false or a category (docs/scores.md)
  sweep status|pause|resume|cancel RUN [--max-cost|--max-tokens|--max-minutes (resume: raise the budget)] [--json]

environment: DATABASE_PATH (store file, default data/metron.db); see docs/configuration.md`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "doctor":
        return await (await import("./doctor")).runDoctorCommand(rest);
      case "migrate": {
        const { databasePath } = await import("@/lib/db/client");
        const { openStore } = await import("@/lib/db/store");
        const sql = await openStore();
        await sql.close();
        console.log(`store migrated: ${sql.dialect === "postgres" ? sql.name : databasePath()}`);
        return 0;
      }
      case "ingest":
        startIngestWorkerAhead(rest);
        try {
          return await (await import("./ingest")).runIngestCommand(rest);
        } finally {
          discardWarmWorker();
        }
      case "backup":
      case "export":
      case "import":
        return await (await import("./transfer")).runTransferCommand(command, rest);
      case "dataset":
        return await (await import("./dataset")).runDatasetCommand(rest);
      case "sql":
        return await (await import("./sql")).runSqlCommand(rest);
      case "evaluate":
        return await (await import("./run-commands")).runEvaluateCommand(rest);
      case "demo":
        return await (await import("./demo")).runDemoCommand(rest);
      case "mcp":
        return await (await import("./mcp")).runMcpCommand(rest);
      case "recompute":
        return await (await import("./run-commands")).runRecomputeCommand(rest);
      case "run":
        return await (await import("./run-curation")).runRunCommand(rest);
      case "sweep":
        return await (await import("./sweep")).runSweepCommand(rest);
      case "search":
        return await (await import("./search")).runSearchCommand(rest);
      case "worker":
        return await (await import("./worker")).runWorkerCommand(rest);
      case "label":
        return await (await import("./label")).runLabelCommand(rest);
      case "score":
        return await (await import("./score")).runScoreCommand(rest);
      case undefined:
      case "help":
      case "--help":
      case "-h":
        console.log(USAGE);
        return command ? 0 : 2;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (e) {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      console.error(`metron: ${(e as Error).message}\n\n${USAGE}`);
      return 2;
    }
    console.error(`metron: ${(e as Error).message}`);
    return 1;
  }
}
