import type { CompareTableRow } from "@/components/compare/compare-table";
import type { Formats } from "@/components/ui/format";
import { readerFormats } from "@/components/ui/reader-locale";
import { isSimulated, SimulatedBadge } from "@/components/ui/simulated-badge";
import type { Run } from "@/lib/db/schema";
import type { CompareRow, Comparison } from "@/lib/metrics/compare-runs";
import { hasInterval, noInterval } from "@/lib/metrics/stats";
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
                  <div title="Difference of over-exploration from the baseline in percentage points (pp), with a 95% paired bootstrap interval over questions">
                    Δ over-exploration:{" "}
                    {v.overDifference ? (
                      <>
                        {f.points(v.overDifference.estimate)}{" "}
                        {hasInterval(v.overDifference)
                          ? `[${f.points(v.overDifference.low)}, ${f.points(v.overDifference.high)}]`
                          : `(${noInterval(v.overDifference)})`}
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

/** The compare table's rows as compact data for the client table (hrefs built here, on the server). */
export function compareTableRows(runs: Run[], rows: CompareRow[]): CompareTableRow[] {
  const ids = runs.map((r) => r.id);
  return rows.map((row) => ({
    key: `${row.questionId}#${row.sample}`,
    questionId: row.questionId,
    sample: row.sample,
    dbId: row.dbId,
    difficulty: row.difficulty,
    text: row.cells[0]?.questionText ?? null,
    hrefs: ids.map((id) => questionPath(id, row.questionId, { sample: row.sample })),
    sideBySide: compareQuestionPath(row.questionId, ids, row.sample),
    cells: row.cells.map((c) => ({ correct: c.correct, exploratory: c.exploratory, gold: c.goldCount })),
    status: row.status,
    exploratoryDelta: row.exploratoryDelta,
    tokenDelta: row.tokenDelta,
  }));
}
