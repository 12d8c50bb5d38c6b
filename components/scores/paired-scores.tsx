"use client";

import { TableExport } from "@/components/ui/table-export";
import { useFormats } from "@/components/ui/locale";
import { differenceText, type PairedScore, type ScoreKind } from "@/lib/metrics/scores";

/**
 * Each custom score of the compared runs against the baseline, on the (question, sample) pairs both scored: the
 * difference with a 95 % paired bootstrap interval over questions, and McNemar's exact test for booleans. A
 * categorical score has no paired test here (its shares are in the table above).
 */
export function PairedScores({
  runs,
  baseline,
  scores,
  latex,
  markdown,
}: {
  runs: { id: string; label: string }[];
  baseline: number;
  scores: { name: string; kind: ScoreKind; versus: (PairedScore | null)[] }[];
  latex: string;
  markdown: string;
}) {
  const f = useFormats();
  const tested = scores.filter((s) => s.kind !== "categorical");
  if (!tested.length) return null;
  return (
    <div className="space-y-1" data-testid="paired-scores">
      <table className="text-sm">
        <thead>
          <tr className="border-b border-zinc-300 text-left text-xs text-zinc-600">
            <th className="py-1 pr-4 font-medium">Score</th>
            <th className="py-1 pr-4 font-medium">Run against {runs[baseline].label}</th>
            <th className="py-1 pr-4 font-medium">Pairs</th>
            <th className="py-1 pr-4 font-medium">Difference [95% CI]</th>
            <th className="py-1 pr-4 font-medium">McNemar</th>
          </tr>
        </thead>
        <tbody>
          {tested.flatMap((s) =>
            s.versus.map((v, i) =>
              v ? (
                <tr key={`${s.name}-${runs[i].id}`} className="border-b border-zinc-100" data-score={s.name}>
                  <td className="py-1 pr-4 font-mono text-xs">{s.name}</td>
                  <td className="py-1 pr-4">{runs[i].label}</td>
                  <td className="py-1 pr-4 tabular-nums">{f.count(v.pairs)}</td>
                  <td className="py-1 pr-4 tabular-nums">
                    {v.pairs ? differenceText(s.kind, v.difference) : "no pairs scored on both sides"}
                  </td>
                  <td className="py-1 pr-4 tabular-nums">
                    {v.mcnemar
                      ? `b=${v.mcnemar.b}, c=${v.mcnemar.c}, p=${v.mcnemar.p < 0.001 ? "< 0.001" : v.mcnemar.p.toFixed(3)}`
                      : "—"}
                  </td>
                </tr>
              ) : null,
            ),
          )}
        </tbody>
      </table>
      <p className="text-xs text-zinc-600">
        b: true on the baseline and false on the run; c: the reverse. The difference is the run&apos;s mean minus the
        baseline&apos;s (a boolean&apos;s share true, in percentage points) on the pairs both scored.
      </p>
      <TableExport latex={latex} markdown={markdown} fileName="scores-paired" testId="paired-scores-export" />
    </div>
  );
}
