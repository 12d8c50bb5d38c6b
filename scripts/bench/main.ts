// Each bench's modules load only when it runs: a phase measured in its own process (ingest-phase) carries no
// other bench's dependencies (Playwright, the app's server helpers) in its memory.
const BENCHES: Record<string, () => Promise<(argv: string[]) => Promise<number>>> = {
  ingest: async () => (await import("./ingest")).benchIngest,
  evaluate: async () => (await import("./evaluate")).benchEvaluate,
  "question-page": async () => (await import("./question-page")).benchQuestionPage,
  compare: async () => (await import("./compare")).benchCompare,
  directives: async () => (await import("./directives")).benchDirectives,
  "ingest-phase": async () => (await import("./ingest-phase")).ingestPhase,
  abuse: async () => (await import("./abuse")).benchAbuse,
  sweep: async () => (await import("./sweep")).benchSweep,
  search: async () => (await import("./search")).benchSearch,
  cli: async () => (await import("./cli")).benchCli,
  "page-weight": async () => (await import("./page-weight")).benchPageWeight,
  up: async () => (await import("./up")).benchUp,
  wear: async () => (await import("./wear")).benchWear,
  load: async () => (await import("./load")).benchLoad,
  scale: async () => (await import("./scale")).benchScale,
};

export async function runBench(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const load = name ? BENCHES[name] : undefined;
  if (!load) {
    console.error(`usage: npm run bench -- <${Object.keys(BENCHES).join("|")}> [options]`);
    return 2;
  }
  return (await load())(rest);
}
