import { benchAbuse } from "./abuse";
import { benchCli } from "./cli";
import { benchPageWeight } from "./page-weight";
import { benchUp } from "./up";
import { benchCompare } from "./compare";
import { benchDirectives } from "./directives";
import { benchEvaluate } from "./evaluate";
import { benchIngest } from "./ingest";
import { benchQuestionPage } from "./question-page";
import { ingestPhase } from "./ingest-phase";
import { benchSweep } from "./sweep";
import { benchSearch } from "./search";

const BENCHES: Record<string, (argv: string[]) => Promise<number>> = {
  ingest: benchIngest,
  evaluate: benchEvaluate,
  "question-page": benchQuestionPage,
  compare: benchCompare,
  directives: benchDirectives,
  "ingest-phase": ingestPhase,
  abuse: benchAbuse,
  sweep: benchSweep,
  search: benchSearch,
  cli: benchCli,
  "page-weight": benchPageWeight,
  up: benchUp,
};

export async function runBench(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const bench = name ? BENCHES[name] : undefined;
  if (!bench) {
    console.error(`usage: npm run bench -- <${Object.keys(BENCHES).join("|")}> [options]`);
    return 2;
  }
  return bench(rest);
}
