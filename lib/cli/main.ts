/** `metron <command>`: dispatch. Each command prints JSON on stdout with --json, text otherwise. */
import { UsageError } from "./args";
import { runIngestCommand } from "./ingest";
import { databasePath, openDb } from "@/lib/db/client";

const USAGE = `usage: metron <command> [options]

commands:
  migrate
      create the store if needed and apply the migrations
  ingest FILE… [--run NAME] [--system S] [--model M] [--benchmark B] [--json]
      ingest canonical JSONL trace files; --json prints the IngestReport

environment: DATABASE_PATH (store file, default data/metron.db), METRON_MAX_LINE_BYTES`;


export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "migrate":
        openDb().$client.close();
        console.log(`store migrated: ${databasePath()}`);
        return 0;
      case "ingest":
        return await runIngestCommand(rest);
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
