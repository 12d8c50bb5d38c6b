import { getSql } from "@/lib/db/store";
import { compareTraceResults } from "@/lib/eval/compare-trace";

/** Runs the final and the gold SQL through the sandbox and returns both results (capped) with their diff. */
export async function POST(_request: Request, ctx: RouteContext<"/api/traces/[traceId]/results">) {
  const { traceId } = await ctx.params;
  const out = await compareTraceResults(await getSql(), traceId);
  const json = JSON.stringify(out, (_k, v) =>
    typeof v === "bigint" ? Number(v) : v instanceof Uint8Array ? `<blob ${v.length} bytes>` : v,
  );
  return new Response(json, {
    status: out.ok || out.reason !== "no such trace" ? 200 : 404,
    headers: { "Content-Type": "application/json" },
  });
}
