import Link from "next/link";
import type { Formats } from "@/components/ui/format";
import { readerFormats } from "@/components/ui/reader-locale";
import { SimulatedBadge } from "@/components/ui/simulated-badge";
import { SystemChip } from "@/components/ui/system-chip";
import type { OverviewGroup } from "@/lib/metrics/overview";
import { hasInterval, noInterval, type Interval } from "@/lib/metrics/stats";
import { runPath } from "@/lib/url/runs";

const ci = (f: Formats, i: Interval | null) =>
  i && hasInterval(i) ? (
    <span className="text-[11px] text-zinc-500">
      {" "}
      [{f.percent(i.low, 0)}, {f.percent(i.high, 0)}]
    </span>
  ) : i ? (
    <span className="text-[11px] text-zinc-500"> ({noInterval(i)})</span>
  ) : null;

/** The system × model matrix of one dataset; each cell links to its run. */
export async function OverviewMatrix({ g }: { g: OverviewGroup }) {
  const f = await readerFormats();
  return (
    <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white">
      <table className="w-full text-sm" data-testid={`matrix-${g.group}`}>
        <thead className="border-b border-zinc-200 bg-zinc-50 text-left text-xs uppercase tracking-wide text-zinc-500">
          <tr>
            <th className="px-3 py-2">Model</th>
            {g.systems.map((s) => (
              <th key={s} className="px-3 py-2">
                <SystemChip system={s} />
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {g.models.map((m) => (
            <tr key={m} className="border-b border-zinc-100 align-top last:border-0">
              <th className="px-3 py-2 text-left font-medium">{m}</th>
              {g.systems.map((s) => {
                const c = g.cells[m]?.[s];
                return (
                  <td key={s} className="px-3 py-2">
                    {!c ? (
                      <span className="text-zinc-500">no run</span>
                    ) : (
                      <div className="mb-1 rounded p-1" data-testid="matrix-cell">
                        <div className="text-[11px] text-zinc-500" data-testid="cell-n">
                          n = {f.counted(c.stats.questions, "question")}
                        </div>
                        <div>
                          <span
                            className="text-zinc-500"
                            title="EX: the mean over questions of each question's share of correct judged traces"
                          >
                            EX
                          </span>{" "}
                          <strong>{f.percent(c.stats.ex?.estimate ?? null)}</strong>
                          {ci(f, c.stats.ex)}
                        </div>
                        <div>
                          <span className="text-zinc-500">over-expl.</span>{" "}
                          <strong>
                            {c.stats.over ? (
                              f.percent(c.stats.over.estimate)
                            ) : (
                              <span className="font-normal text-zinc-500">needs gold tables</span>
                            )}
                          </strong>
                          {ci(f, c.stats.over)}
                        </div>
                        <div className="text-xs text-zinc-600">
                          failed w/ extra tables{" "}
                          {c.stats.failedWithExtra === null ? "needs gold tables" : f.count(c.stats.failedWithExtra)} ·
                          tokens{" "}
                          {c.stats.inputTokens !== null && c.stats.outputTokens !== null
                            ? `${f.tokens(c.stats.inputTokens)} / ${f.tokens(c.stats.outputTokens)}`
                            : "not recorded"}
                          {c.aggregates.cost !== null ? ` · ${f.usd(c.aggregates.cost, 2)}` : ""}
                          {c.aggregates.directiveOverheadCost
                            ? ` + ${f.usd(c.aggregates.directiveOverheadCost, 2)} directives`
                            : ""}
                          {c.aggregates.directiveRecall !== null
                            ? ` · recall ${f.percent(c.aggregates.directiveRecall, 0)}`
                            : ""}
                        </div>
                        <div
                          className="flex flex-wrap items-center gap-1 text-[11px] text-zinc-500"
                          data-testid="cell-runs"
                        >
                          {c.runs.length > 1 ? `pools ${c.runs.length} runs:` : "run"}{" "}
                          {c.runs.map((r, i) => (
                            <span key={r.id}>
                              {i > 0 && " + "}
                              <Link href={runPath(r.id)} className="text-blue-700 hover:underline">
                                {r.name}
                              </Link>
                            </span>
                          ))}
                          {c.runs.some((r) => r.simulated) && <SimulatedBadge />}
                        </div>
                      </div>
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
