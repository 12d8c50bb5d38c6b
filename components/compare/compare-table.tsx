"use client";

import type { PairStatus } from "@/lib/metrics/compare-runs";
import { OutcomeCell } from "./outcome-cell";

/** One row of the compare table, compact: the page sends these as data, not as a rendered tree (issue 21). */
export interface CompareTableRow {
  key: string;
  questionId: string;
  sample: number;
  dbId: string | null;
  difficulty: string | null;
  text: string | null;
  /** Per run: the question page of its trace. */
  hrefs: string[];
  sideBySide: string;
  cells: { correct: number | null; exploratory: number; gold: number | null }[];
  status: (PairStatus | null)[];
  exploratoryDelta: (number | null)[];
  tokenDelta: (number | null)[];
}

export function CompareTable({
  runs,
  baseline,
  rows,
}: {
  runs: { id: string; label: string }[];
  baseline: number;
  rows: CompareTableRow[];
}) {
  const td = "px-3 py-1.5";
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
                {r.label}
                {i === baseline ? " (baseline)" : ""}
              </th>
            ))}
            <th className="px-3 py-2" />
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key} className="border-b border-zinc-100 last:border-0">
              <td className={td}>
                <span className="font-mono">
                  {row.questionId}
                  {row.sample ? <span className="text-zinc-500"> #{row.sample}</span> : null}
                </span>
                {row.text && (
                  <span className="block max-w-xs truncate text-xs text-zinc-600" title={row.text}>
                    {row.text}
                  </span>
                )}
              </td>
              <td className={td}>{row.dbId ?? "—"}</td>
              <td className={td}>{row.difficulty ?? "—"}</td>
              {row.cells.map((c, i) => (
                <td key={runs[i].id} className={td}>
                  <a href={row.hrefs[i]} className="hover:underline">
                    <OutcomeCell
                      correct={c.correct}
                      status={row.status[i]}
                      exploratory={c.exploratory}
                      gold={c.gold}
                      exploratoryDelta={row.exploratoryDelta[i]}
                      tokenDelta={row.tokenDelta[i]}
                    />
                  </a>
                </td>
              ))}
              <td className={td}>
                <a className="whitespace-nowrap text-blue-700 hover:underline" href={row.sideBySide}>
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
