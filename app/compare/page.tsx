import { isSimulated } from "@/components/ui/simulated-badge";
import Link from "next/link";
import { TableExport } from "@/components/ui/table-export";
import { comparisonTable } from "@/lib/metrics/compare-runs";
import { toLatex, toMarkdown } from "@/lib/metrics/table-export";
import { connection } from "next/server";
import { Suspense } from "react";
import { createLoader, createSerializer, type SearchParams } from "nuqs/server";
import { CompareFilters } from "@/components/compare/compare-filters";
import { CompareTable } from "@/components/compare/compare-table";
import { CompareHeadline, compareTableRows } from "@/components/compare/compare-view";
import { RunPicker } from "@/components/compare/run-picker";
import { getSql } from "@/lib/db/store";
import { listComparableRuns, loadComparison } from "@/lib/db/queries/compare";
import { filterCompareRows } from "@/lib/metrics/compare-runs";
import { labelledKeys, listRunLabels } from "@/lib/labels/labels";
import { SweepForm } from "@/components/sweeps/sweep-form";
import { sweepFormSetup } from "@/lib/agent/sweeps";
import { COMPARE_PAGE_SIZE, compareSearchParams } from "@/lib/url/compare";
import type { Metadata } from "next";
import type { Run } from "@/lib/db/schema";
import { PairedScores } from "@/components/scores/paired-scores";
import { ScoresPanel } from "@/components/scores/scores-panel";
import { compareRunScores } from "@/lib/scores/scores";
import { pairedScoresTable, scoresView } from "@/lib/metrics/scores";

export async function generateMetadata({ searchParams }: { searchParams: Promise<SearchParams> }): Promise<Metadata> {
  const runs = String((await searchParams).runs ?? "")
    .split(",")
    .filter(Boolean).length;
  return { title: runs > 1 ? `Compare ${runs} runs — Metron` : "Compare runs — Metron" };
}

const loadParams = createLoader(compareSearchParams);
const serialize = createSerializer(compareSearchParams);

export default function ComparePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return (
    <div className="space-y-5">
      <h1 className="text-xl font-semibold">Compare runs</h1>
      <Suspense fallback={<p className="text-sm text-zinc-500">Loading…</p>}>
        <Compare searchParams={searchParams} />
      </Suspense>
    </div>
  );
}

async function Compare({ searchParams }: { searchParams: Promise<SearchParams> }) {
  await connection();
  const params = await loadParams(searchParams);
  const sql = await getSql();
  const { runs, missing, baseline, comparison } = await loadComparison(sql, params.runs, params.baseline);
  if (!comparison) {
    return (
      <>
        {missing.length > 0 && <p className="text-sm text-red-700">Unknown run ids: {missing.join(", ")}</p>}
        {runs.length === 1 && (
          <p className="text-sm text-zinc-600">
            Choose at least one more run to compare with {runs[0].system} · {runs[0].model}.
          </p>
        )}
        <RunPicker runs={await listComparableRuns(sql)} selected={runs.map((r) => r.id)} />
      </>
    );
  }
  const filtered = filterCompareRows(
    comparison.rows,
    params,
    params.label ? await labelledKeys(await getSql(), params.runs, params.label) : null,
  );
  const pages = Math.max(1, Math.ceil(filtered.length / COMPARE_PAGE_SIZE));
  const page = Math.min(params.page, pages);
  const href = (p: number) => `/compare${serialize({ ...params, page: p })}`;
  return (
    <>
      {missing.length > 0 && <p className="text-sm text-red-700">Unknown run ids left out: {missing.join(", ")}</p>}
      <CompareHeadline runs={runs} baseline={baseline} comparison={comparison} />
      <TableExport
        latex={toLatex(
          comparisonTable(
            runs.map((r) => ({ ...r, simulated: isSimulated(r.config) })),
            comparison,
            baseline,
          ),
        )}
        markdown={toMarkdown(
          comparisonTable(
            runs.map((r) => ({ ...r, simulated: isSimulated(r.config) })),
            comparison,
            baseline,
          ),
        )}
        fileName="comparison"
        testId="compare-export"
      />
      <Suspense fallback={<p className="text-sm text-zinc-500">Loading the scores…</p>}>
        <CompareScores runs={runs} baseline={baseline} />
      </Suspense>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <CompareFilters
          runs={runs.map((r) => ({ id: r.id, label: `${r.system} · ${r.model}` }))}
          baselineId={runs[baseline].id}
          databases={[...new Set(comparison.rows.map((r) => r.dbId).filter((d): d is string => d !== null))].sort()}
          difficulties={[
            ...new Set(comparison.rows.map((r) => r.difficulty).filter((d): d is string => d !== null)),
          ].sort()}
          labels={await listRunLabels(
            sql,
            runs.map((r) => r.id),
          )}
        />
        <a
          className="text-sm text-blue-700 hover:underline"
          href={`/api/export/compare.csv${serialize({ ...params, page: null })}`}
        >
          Download CSV
        </a>
      </div>
      {runs[baseline].datasetId && (
        <SweepForm
          {...await sweepFormSetup(
            sql,
            runs[baseline].datasetId!,
            runs[baseline],
            params.show !== "all" || params.db || params.difficulty
              ? {
                  ids: [...new Set(filtered.map((r) => r.questionId))],
                  description: [
                    params.show !== "all" && params.show,
                    params.db && `database ${params.db}`,
                    params.difficulty && `difficulty ${params.difficulty}`,
                  ]
                    .filter(Boolean)
                    .join(", "),
                }
              : undefined,
          )}
        />
      )}
      <CompareTable
        runs={runs.map((r) => ({ id: r.id, label: `${r.system} · ${r.model}` }))}
        baseline={baseline}
        rows={compareTableRows(runs, filtered.slice((page - 1) * COMPARE_PAGE_SIZE, page * COMPARE_PAGE_SIZE))}
      />
      <nav className="flex items-center gap-3 text-sm" aria-label="Pages">
        {page > 1 && (
          <Link className="rounded border border-zinc-300 px-2 py-1" href={href(page - 1)}>
            Previous
          </Link>
        )}
        <span>
          Page {page} of {pages} · {filtered.length} of {comparison.rows.length} questions
        </span>
        {page < pages && (
          <Link className="rounded border border-zinc-300 px-2 py-1" href={href(page + 1)}>
            Next
          </Link>
        )}
      </nav>
    </>
  );
}

/** The runs' custom scores side by side, and each against the baseline with its paired test (nothing without scores). */
async function CompareScores({ runs, baseline }: { runs: Run[]; baseline: number }) {
  const { runs: summaries, paired } = await compareRunScores(
    await getSql(),
    runs.map((r) => r.id),
    baseline,
  );
  if (!paired.length) return null;
  const named = runs.map((r) => ({ name: r.name, simulated: isSimulated(r.config) }));
  const rows = runs.map((r, i) => ({
    ...named[i],
    name: `${r.name} (${r.system} · ${r.model})`,
    system: r.system,
    scores: summaries[i],
  }));
  const table = pairedScoresTable(named, baseline, paired);
  return (
    <section className="space-y-2" aria-labelledby="compare-scores-heading">
      <h2 id="compare-scores-heading" className="font-semibold">
        Scores
      </h2>
      <ScoresPanel
        {...scoresView(rows, { caption: "Scores of the compared runs.", label: "tab:scores-compared" })}
        fileName="compare-scores"
        source={`runs ${runs.map((r) => r.name).join(", ")}`}
      />
      <PairedScores
        runs={runs.map((r) => ({ id: r.id, label: `${r.system} · ${r.model}` }))}
        baseline={baseline}
        scores={paired}
        latex={toLatex(table)}
        markdown={toMarkdown(table)}
      />
    </section>
  );
}
