/**
 * Runs once when the server starts: the job worker resumes the sweeps and reruns a previous server process left
 * queued or running (lib/agent/jobs.ts), so a restart in the middle of a sweep finishes it.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.METRON_JOBS === "off") return;
  const { getDb, openConnection } = await import("@/lib/db/client");
  const { serverWorker } = await import("@/lib/agent/jobs");
  getDb(); // migrated before the worker opens its own connections
  serverWorker(() => openConnection());
}
