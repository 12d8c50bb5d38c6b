import { parseArgs } from "node:util";
import { directiveDeps } from "@/lib/agent/directive-models";
import { openStore } from "@/lib/db/store";
import { loadQuestionFrom } from "@/lib/environment/database-info";
import { directivesFor, variants, type Variant } from "@/lib/environment/directives";
import { createMcpServer, serveHttp, serveStdio } from "@/lib/environment/mcp-server";
import { SqlEnvironment } from "@/lib/environment/tools";
import { UsageError } from "./args";

/** `metron mcp`: stdout is the protocol channel over stdio, so everything else goes to stderr. */
export async function runMcpCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      dataset: { type: "string" },
      question: { type: "string" },
      variant: { type: "string", default: "none" },
      "trace-out": { type: "string" },
      http: { type: "string" },
      run: { type: "string" },
      model: { type: "string" },
    },
  });
  if (!values.dataset || !values.question) throw new UsageError("mcp needs --dataset NAME and --question ID");
  if (!(variants as readonly string[]).includes(values.variant!))
    throw new UsageError(`--variant must be one of ${variants.join(", ")}`);
  const sql = await openStore();
  const { question, database } = await loadQuestionFrom(sql, values.dataset, values.question);
  const variant = values.variant as Variant;
  const directives = await directivesFor(variant, question, database, { deps: directiveDeps() });
  const environment = () =>
    new SqlEnvironment(question, database, { variant, directives, run: { name: values.run, model: values.model } });
  /** Closes what serves and the store, then exits, on Ctrl-C or a TERM (and returns the function for other ends). */
  const stopOn = (close: () => Promise<void>) => {
    const stop = async () => {
      await close();
      await sql.close();
      process.exit(0);
    };
    process.on("SIGINT", () => void stop());
    process.on("SIGTERM", () => void stop());
    return stop;
  };
  const label = `question ${question.id} of ${database.datasetId} (${variant})`;
  if (values.http) {
    // Any number of clients at once, each with an environment and a trace of its own.
    const served = await serveHttp(async () => {
      const env = environment();
      return { server: createMcpServer(env, values["trace-out"]), close: () => env.close() };
    }, Number(values.http));
    stopOn(() => served.close());
    console.error(`metron mcp: ${label} at ${served.url}`);
  } else {
    const env = environment();
    const stop = stopOn(() => env.close());
    await serveStdio(createMcpServer(env, values["trace-out"]));
    process.stdin.on("end", () => void stop()); // the client went away
    console.error(`metron mcp: ${label} on stdio`);
  }
  await new Promise(() => undefined); // serve until stopped
  return 0;
}
