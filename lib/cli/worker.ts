/**
 * `metron worker [--concurrency N]`: a dedicated job worker. It takes queued sweep jobs and reruns from the store
 * (the same leases and atomic claims as the server's own worker, lib/agent/jobs.ts) until it is stopped; SIGINT or
 * SIGTERM puts the jobs it was running back in the queue. Run several beside a server started with
 * `METRON_WORKERS=0`; a worker killed outright leaves its jobs to be taken back by the others (at once on this
 * machine, where its process is seen gone; elsewhere when its lease runs out).
 */
import { parseArgs } from "node:util";
import { JobWorker } from "@/lib/agent/jobs";
import { databasePath } from "@/lib/db/client";
import { openStore, postgresUrl, storeOpener } from "@/lib/db/store";
import { closeSharedSandbox } from "@/lib/sandbox/sandbox";
import { flushAgentSpans } from "@/lib/otel/emit";
import { UsageError } from "./args";

export async function runWorkerCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { concurrency: { type: "string" } },
  });
  const concurrency = values.concurrency === undefined ? Infinity : Number(values.concurrency);
  if (!(concurrency === Infinity || (Number.isInteger(concurrency) && concurrency > 0)))
    throw new UsageError("--concurrency must be a whole number ≥ 1");
  const migrated = await openStore(); // migrated before the worker opens its connections
  const where = postgresUrl() ? migrated.name : databasePath();
  await migrated.close();
  const worker = new JobWorker(storeOpener(), undefined, concurrency);
  console.error(
    `metron worker ${worker.id}: taking sweep jobs and reruns from ${where}${concurrency === Infinity ? "" : `, at most ${concurrency} at once`} (Ctrl-C stops it; its running jobs go back to the queue)`,
  );
  worker.kick();
  const keepAlive = setInterval(() => undefined, 1 << 30);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  clearInterval(keepAlive);
  await worker.stop();
  await closeSharedSandbox();
  await flushAgentSpans(); // the spans still buffered, before the process exits
  console.error(`metron worker ${worker.id}: stopped`);
  return 0;
}
