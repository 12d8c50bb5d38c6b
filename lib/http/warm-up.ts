/**
 * The server's warm-up after a start: once it answers, one request to a page of each kind (home, Experiments, the
 * newest run, one of its questions, a comparison, search), in the background and one after another. Profiled on a
 * fresh server, two thirds of a first question page's 0.5–1 s went to loading the page's code (the bundler's
 * module instantiation) and the rest to first uses (the highlighter's grammars, the run's derived data): paid here,
 * a researcher's first click no longer pays them. `METRON_WARM_UP=0` turns it off. With access tokens on, the
 * requests carry none: they reach the sign-in page only, and the pages stay cold.
 */
import type { Sql } from "@/lib/db/sql";
import { many, qb } from "@/lib/db/typed";
import { compareQuestionPath } from "@/lib/url/compare";
import { questionPath } from "@/lib/url/question";
import { runPath } from "@/lib/url/runs";

/** The pages to request: the newest runs' pages where the store has runs. */
export async function listWarmUpPaths(sql: Sql): Promise<string[]> {
  const paths = ["/", "/experiments", "/search"];
  const q = qb(sql);
  const runs = await many(sql, q.selectFrom("runs").select("id").orderBy("created_at", "desc").orderBy("id").limit(2));
  if (!runs.length) return paths;
  const ids = runs.map((r) => r.id);
  paths.push(runPath(ids[0]), `/compare?runs=${ids.map(encodeURIComponent).join(",")}`);
  const [question] = await many(
    sql,
    q.selectFrom("traces").select("question_id").where("run_id", "=", ids[0]).limit(1),
  );
  if (question) paths.push(questionPath(ids[0], question.question_id), compareQuestionPath(question.question_id, ids));
  return paths;
}

export interface WarmUpResult {
  path: string;
  status: number | null;
  ms: number;
  error?: string;
}

/**
 * Waits (up to `readyMs`) until `origin` answers, then requests each path once, reading the whole body. Never throws:
 * a page that fails is reported in its result and the next is requested.
 */
export async function warmUp(
  origin: string,
  paths: string[],
  opts: { fetch?: typeof fetch; readyMs?: number; timeoutMs?: number; pollMs?: number } = {},
): Promise<WarmUpResult[]> {
  const get = opts.fetch ?? fetch;
  const deadline = performance.now() + (opts.readyMs ?? 60_000);
  for (;;) {
    try {
      // 401 or 403: the server answers, with access tokens on (it waited 60 s for a 200 that never came, then warmed
      // nothing)
      const probe = await get(`${origin}/api/schema/trace`, { signal: AbortSignal.timeout(5_000) });
      if (probe.ok || probe.status === 401 || probe.status === 403) break;
    } catch {
      // not answering yet
    }
    if (performance.now() > deadline) return paths.map((path) => ({ path, status: null, ms: 0, error: "no answer" }));
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 200));
  }
  const results: WarmUpResult[] = [];
  for (const path of paths) {
    const start = performance.now();
    try {
      const res = await get(`${origin}${path}`, { signal: AbortSignal.timeout(opts.timeoutMs ?? 60_000) });
      await res.arrayBuffer();
      results.push({ path, status: res.status, ms: performance.now() - start });
    } catch (e) {
      results.push({ path, status: null, ms: performance.now() - start, error: (e as Error).message });
    }
  }
  return results;
}

/** The warm-up's line in the log: how many pages it warmed, and why not the others. */
export function warmUpSummary(results: WarmUpResult[], ms: number): string {
  const failed = results.filter((r) => r.status === null || r.status >= 400);
  const head = `metron: warmed ${results.length - failed.length} of ${results.length} pages in ${(ms / 1000).toFixed(1)} s`;
  // With access tokens on, the requests carry none: every page answers 401 and stays cold, which is no fault.
  if (failed.length && failed.every((r) => r.status === 401 || r.status === 403))
    return `${head} (access tokens are on and the warm-up carries none: pages load their code at their first signed-in request)`;
  return head + (failed.length ? ` (not: ${failed.map((r) => `${r.path} ${r.error ?? r.status}`).join(", ")})` : "");
}

/** At a production server's start (instrumentation.ts): the warm-up of this server, logged in one line. */
export async function warmUpServer(sql: Sql): Promise<void> {
  if (process.env.METRON_WARM_UP === "0" || process.env.NODE_ENV !== "production" || !process.env.PORT) return;
  const origin = process.env.__NEXT_PRIVATE_ORIGIN ?? `http://127.0.0.1:${process.env.PORT}`;
  try {
    const started = performance.now();
    const results = await warmUp(origin, await listWarmUpPaths(sql));
    console.log(warmUpSummary(results, performance.now() - started));
  } catch (e) {
    console.log(`metron: the warm-up stopped: ${(e as Error).message}`);
  }
}
