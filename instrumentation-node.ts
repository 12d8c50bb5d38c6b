/**
 * What the server does once when it starts (instrumentation.ts calls it in the Node.js runtime only): the job worker
 * resumes the sweeps and reruns a previous server process left queued or running (lib/agent/jobs.ts), so a restart in
 * the middle of a sweep finishes it; and the search index catches up, in the background, with traces ingested while no
 * server ran; and OTLP spans left unassembled are assembled once quiet; and upload bodies a stopped server left behind
 * are removed; and the pages' modules are instantiated before it answers, and once it answers the server requests one
 * page of each kind, so that a first click does not pay for loading the pages' code. Kept out of instrumentation.ts,
 * which Next.js also compiles for the Edge runtime, where `node:fs` does not exist.
 */
import { readFileSync } from "node:fs";

export async function startServer(): Promise<void> {
  // What derived data kept in the store was computed by (lib/db/queries/run-cache.ts): the stamp of the sources of
  // lib/ this build was made from, the first part of its id (next.config.ts), as the CLI's.
  try {
    process.env.METRON_CODE_STAMP ??= readFileSync(".next/BUILD_ID", "utf8").trim().split("-")[0];
  } catch {
    // `next dev`: no build id; kept values say "dev"
  }
  // The highlighter (shiki's grammars and its WebAssembly, a query and a JSON value highlighted once) is made now,
  // while the start's other work goes on, and is ready before the server answers (awaited with the pages' preload
  // below): made in the background, it was still compiling when a first question page came right after the start.
  const highlighterReady = import("@/lib/highlight/highlight")
    .then((m) => m.warmHighlighter())
    .catch((e: unknown) => console.error("metron: the highlighter's warm-up failed:", e));
  // A store that cannot be opened or whose file is damaged is reported on every page, not as a bare 500.
  const { checkStore, checkStoreAtStart } = await import("@/lib/db/health");
  const health = await checkStore();
  if (!health.ok) {
    console.error(`metron: ${health.problem} — ${health.advice}`);
    return; // nothing below can run; the pages say why
  }
  void checkStoreAtStart(); // the file's pages, in the background
  const { serverWorker } = await import("@/lib/agent/jobs");
  const { getSql, storeOpener } = await import("@/lib/db/store");
  const { indexInBackground } = await import("@/lib/search");
  await getSql(); // migrated before the worker opens its own connections
  // Upload bodies a crashed or killed server left half-received or un-ingested (nothing of them was stored).
  const { removeLeftoverBodies } = await import("@/lib/ingest/receive");
  await removeLeftoverBodies();
  serverWorker(storeOpener()); // unless METRON_WORKERS=0: dedicated `metron worker` processes take the jobs
  indexInBackground(storeOpener()); // traces ingested by the CLI since the last start
  // Runs' views missing for this build (a new build, a store written by other code), once the start's work is done.
  const { viewsAfterStream, viewsAheadDelayMs, viewsInBackground } = await import("@/lib/views/ahead");
  viewsInBackground(storeOpener(), viewsAheadDelayMs());
  // Spans received on /v1/traces before a restart whose trace was not yet assembled.
  const { startAssembler } = await import("@/lib/otel/assemble");
  const { otlpQuietMs } = await import("@/lib/otel/stored-spans");
  startAssembler(getSql, storeOpener(), viewsAfterStream(storeOpener(), otlpQuietMs()));
  // The pages' modules instantiated before the server answers (lib/http/preload.ts; METRON_PRELOAD=0 turns it off).
  const { preloadServer } = await import("@/lib/http/preload");
  await preloadServer();
  await highlighterReady;
  // One request to a page of each kind once the server answers, so that the first click does not load the pages'
  // code (lib/http/warm-up.ts; METRON_WARM_UP=0 turns it off).
  const { warmUpServer } = await import("@/lib/http/warm-up");
  void warmUpServer(await getSql());
}
