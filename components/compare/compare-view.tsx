import { OutcomeCell } from "@/components/compare/outcome-cell";
import type { Formats } from "@/components/ui/format";
import { readerFormats } from "@/components/ui/reader-locale";
import { isSimulated, SimulatedBadge } from "@/components/ui/simulated-badge";
import type { Run } from "@/lib/db/schema";
import type { CompareRow, Comparison } from "@/lib/metrics/compare-runs";
import { compareQuestionPath } from "@/lib/url/compare";
import { questionPath } from "@/lib/url/question";

const p = (f: Formats, x: number | null) =>
  x === null ? "—" : x < 0.001 ? `< ${f.decimal(0.001, 3)}` : f.decimal(x, 3);

export async function CompareHeadline({
  runs,
  baseline,
  comparison,
}: {
  runs: Run[];
  baseline: number;
  comparison: Comparison;
}) {
  const f = await readerFormats();
  return (
    <div className="space-y-2">
      <p className="text-sm text-zinc-600" data-testid="compare-alignment">
        {f.count(comparison.aligned)} (question, sample) pairs in every run.
        {comparison.leftOut.some((n) => n > 0) &&
          ` Left out, not in every run: ${runs.map((r, i) => `${r.system} · ${r.model}: ${comparison.leftOut[i]}`).join("; ")}.`}
      </p>
      <div className="grid gap-3 md:grid-cols-2 lg:grid-cols-3" data-testid="compare-headline">
        {runs.map((r, i) => {
          const v = comparison.versus[i];
          return (
            <div key={r.id} className="rounded-lg border border-zinc-200 bg-white p-3 text-sm">
              <div className="font-medium">
                {r.system} · {r.model}
                {i === baseline && <span className="ml-2 rounded bg-zinc-800 px-1.5 text-xs text-white">baseline</span>}
              </div>
              <div className="flex items-center gap-1 text-xs text-zinc-500">
                {r.name}
                {isSimulated(r.config) && <SimulatedBadge />}
              </div>
              {v ? (
                <div className="mt-2 space-y-1">
                  <div>
                    <span className="font-semibold text-emerald-700">{v.fixed} fixed</span> ·{" "}
                    <span className="font-semibold text-red-700">{v.regressed} regressed</span> · {v.bothRight} both
                    right · {v.bothWrong} both wrong{v.unknown ? ` · ${v.unknown} unknown` : ""}
                  </div>
                  <div title="Exact McNemar test on the discordant pairs (fixed vs regressed)">
                    McNemar p = {p(f, v.mcnemarP)}
                  </div>
                  <div title="Difference of over-exploration from the baseline, with a 95% paired bootstrap interval over questions">
                    Δ over-exploration:{" "}
                    {v.overDifference ? (
                      <>
                        {f.percent(v.overDifference.estimate)} [{f.percent(v.overDifference.low)},{" "}
                        {f.percent(v.overDifference.high)}]
                      </>
                    ) : (
                      "— (no gold tables)"
                    )}
                  </div>
                </div>
              ) : (
                <p className="mt-2 text-xs text-zinc-500">Every other run is compared with this one.</p>
              )}
            </div>
          );
        })}
      </div>
    </div>
  );
}

export function CompareTable({ runs, baseline, rows }: { runs: Run[]; baseline: number; rows: CompareRow[] }) {
  const ids = runs.map((r) => r.id);
  return (
    <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white">
      <table className="w-full text-sm" data-testid="compare-table">
        <thead className="border-b border-zinc-200 bg-zinc-50 text-left text-xs uppercase tracking-wide text-zinc-500">
          <tr>
            <th className="px-3 py-2">Question</th>
            <th className="px-3 py-2">Database</th>
            <th className="px-3 py-2">Difficulty</th>
            {runs.map((r, i) => (
              <th key={r.id} className="px-3 py-2">
                {r.system} · {r.model}
                {i === baseline ? " (baseline)" : ""}
              </th>
            ))}
            <th className="px-3 py-2" />
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={`${row.questionId}#${row.sample}`} className="border-b border-zinc-100 last:border-0">
              <td className="px-3 py-1.5">
                <span className="font-mono">
                  {row.questionId}
                  {row.sample ? <span className="text-zinc-500"> #{row.sample}</span> : null}
                </span>
                {row.cells[0]?.questionText && (
                  <span className="block max-w-xs truncate text-xs text-zinc-600" title={row.cells[0].questionText}>
                    {row.cells[0].questionText}
                  </span>
                )}
              </td>
              <td className="px-3 py-1.5">{row.dbId ?? "—"}</td>
              <td className="px-3 py-1.5">{row.difficulty ?? "—"}</td>
              {row.cells.map((c, i) => (
                <td key={ids[i]} className="px-3 py-1.5">
                  {/* Plain links: a Link per cell would repeat its props in the page's payload (issue 21). */}
                  <a href={questionPath(ids[i], row.questionId, { sample: row.sample })} className="hover:underline">
                    <OutcomeCell
                      correct={c.correct}
                      status={row.status[i]}
                      exploratory={c.exploratory}
                      gold={c.goldCount}
                      exploratoryDelta={row.exploratoryDelta[i]}
                      tokenDelta={row.tokenDelta[i]}
                    />
                  </a>
                </td>
              ))}
              <td className="px-3 py-1.5">
                <a
                  className="text-blue-700 hover:underline"
                  href={compareQuestionPath(row.questionId, ids, row.sample)}
                >
                  side by side
                </a>
              </td>
            </tr>
          ))}
          {rows.length === 0 && (
            <tr>
              <td colSpan={runs.length + 4} className="px-3 py-6 text-center text-zinc-500">
                No question matches the filters.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
