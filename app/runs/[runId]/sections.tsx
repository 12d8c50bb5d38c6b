import type { Run } from "@/lib/db/schema";
import { TableExport } from "@/components/ui/table-export";
import { runSummaryTable } from "@/lib/metrics/run-metrics";
import { toLatex, toMarkdown } from "@/lib/metrics/table-export";
import { RunCuration } from "@/components/runs/run-curation";
import { LocalTime } from "@/components/ui/local-time";
import { EvaluateButton } from "@/components/runs/evaluate-button";
import { defaultCompareMode } from "@/lib/eval/evaluate-run";
import { LazyRunCharts } from "@/components/runs/run-charts-lazy";
import { RunSummary } from "@/components/runs/run-summary";
import { DirectiveSavingsPanel } from "@/components/runs/directive-savings";
import { getDirectiveSavings } from "@/lib/environment/directive-savings";
import { TracesTable } from "@/components/runs/traces-table";
import { isSimulated } from "@/components/ui/simulated-badge";
import { getSql } from "@/lib/db/store";
import { listRunChanges } from "@/lib/db/queries/runs";
import { listTraceFacets, listTraces } from "@/lib/db/queries/traces";
import { callsBars, exOverBreakdown, explorationScatter } from "@/lib/metrics/run-charts";
import { difficultyOrder, sampleStats } from "@/lib/metrics/run-units";
import { ROLE_LABELS } from "@/lib/metrics/run-metrics";
import { TRACES_PAGE_SIZE, tracesSearchParams } from "@/lib/url/runs";
import { SweepForm } from "@/components/sweeps/sweep-form";
import { SweepProgress } from "@/components/sweeps/sweep-progress";
import { sweepFormSetup, sweepStatus } from "@/lib/agent/sweeps";
import { createSerializer, type inferParserType } from "nuqs/server";
import { ScoresPanel } from "@/components/scores/scores-panel";
import { summarizeRunScores } from "@/lib/scores/scores";
import { scoresView } from "@/lib/metrics/scores";
import { loadAggregates, loadDatasets, loadTools, loadTraceIds, loadUnits } from "./load-run";
import { applyRunRoles, linkDataset, previewRunRoles, removeRun, saveRunIdentity, setRunArchived } from "./actions";

/**
 * The run page's sections (issue 32): each an async server component in a <Suspense> of its own, reading what it
 * shows; what several read (the aggregates, the trace units, the tool counts, the datasets) is loaded once per
 * request (load-run.ts, React `cache`), so sections stream as they are ready and their reads overlap on PostgreSQL.
 */

export type RunQuery = inferParserType<typeof tracesSearchParams>;
const serialize = createSerializer(tracesSearchParams);

/** The curation panel's server actions, handed to it as props (a plain object: what React passes to the client). */
const curationActions = {
  saveRunIdentity,
  linkDataset,
  previewRunRoles,
  applyRunRoles,
  setRunArchived,
  removeRun,
};

export { Pending } from "@/components/ui/pending";

/** The filters of the question table, in words (the sweep form offers a sweep of the questions they leave). */
export function filterWords(query: RunQuery): string[] {
  return [
    query.failing && "failing",
    query.extra && "extra tables",
    query.over && "over-explored",
    query.db && `database ${query.db}`,
    query.difficulty && `difficulty ${query.difficulty}`,
    query.q && `search "${query.q}"`,
    query.label && `label ${query.label}`,
  ].filter((x): x is string => Boolean(x));
}

export async function SweepSection({ runId }: { runId: string }) {
  const sweep = await sweepStatus(await getSql(), runId);
  return sweep ? <SweepProgress initial={sweep} compact /> : null;
}

/** Curation, the summary and its export, the directive savings, evaluation. */
export async function SummarySection({ run, k }: { run: Run; k: number | null }) {
  const sql = await getSql();
  const [aggregates, units, tools, allDatasets, savings] = await Promise.all([
    loadAggregates(run.id),
    loadUnits(run.id),
    loadTools(run.id),
    loadDatasets(),
    getDirectiveSavings(sql, run.id),
  ]);
  const datasets = allDatasets.map((d) => ({ id: d.id, name: d.name }));
  const datasetFormat = allDatasets.find((d) => d.id === run.datasetId)?.format;
  const summary = runSummaryTable({ ...run, simulated: isSimulated(run.config) }, aggregates);
  return (
    <>
      <RunCuration
        actions={curationActions}
        run={{
          id: run.id,
          name: run.name,
          system: run.system,
          model: run.model,
          description: run.description,
          tags: run.tags ?? [],
          datasetId: run.datasetId,
          archived: Boolean(run.archivedAt),
          traces: aggregates.traces,
        }}
        datasets={datasets}
        tools={tools}
      />
      <RunSummary
        a={aggregates}
        hasDataset={Boolean(run.datasetId)}
        samples={sampleStats(units, k ?? undefined)}
        exSettings={run.exSettings ?? null}
      />
      <TableExport
        latex={toLatex(summary)}
        markdown={toMarkdown(summary)}
        fileName={`${run.name}-summary`.replace(/[^\w.-]+/g, "_")}
        testId="run-summary-export"
      />
      {savings && <DirectiveSavingsPanel savings={savings} />}
      <EvaluateButton
        runId={run.id}
        defaultMode={defaultCompareMode(datasetFormat)}
        disabledReason={run.datasetId ? undefined : "Link the run to a dataset (Edit this run, above) to evaluate it"}
      />
    </>
  );
}

/** The sweep form, offering the questions the table's filters leave (all of them without filters). */
export async function SweepFormSection({ run, query }: { run: Run & { datasetId: string }; query: RunQuery }) {
  const sql = await getSql();
  const words = filterWords(query);
  const traceIds = await loadTraceIds(run.id, query.q ?? null);
  const filtered = words.length
    ? [
        ...new Set(
          (await listTraces(sql, run.id, { ...query, traceIds, page: 1, pageSize: 100_000 })).rows.map(
            (r) => r.questionId,
          ),
        ),
      ]
    : [];
  return (
    <SweepForm
      {...await sweepFormSetup(
        sql,
        run.datasetId,
        run,
        filtered.length ? { ids: filtered, description: words.join(", ") } : undefined,
      )}
    />
  );
}

export async function QuestionsSection({ run, query }: { run: Run; query: RunQuery }) {
  const sql = await getSql();
  const traceIds = await loadTraceIds(run.id, query.q ?? null);
  const [{ rows, total }, facets] = await Promise.all([
    listTraces(sql, run.id, { ...query, traceIds, pageSize: TRACES_PAGE_SIZE }),
    listTraceFacets(sql, run.id),
  ]);
  return (
    <TracesTable
      rows={rows}
      total={total}
      pageSize={TRACES_PAGE_SIZE}
      databases={facets.databases}
      difficulties={facets.difficulties}
      csvHref={`/api/runs/${encodeURIComponent(run.id)}/traces.csv${serialize({ ...query, page: null, k: null })}`}
    />
  );
}

/** After the questions: the charts (and recharts) load as they scroll into view, not with the page. */
export async function ChartsSection({ run }: { run: Run }) {
  const [units, tools] = await Promise.all([loadUnits(run.id), loadTools(run.id)]);
  const roleTotals = Object.entries(ROLE_LABELS).map(([role, label]) => ({
    label,
    calls: tools.filter((t) => t.role === role).reduce((s, t) => s + t.calls, 0),
  }));
  return (
    <LazyRunCharts
      system={run.system}
      fileBase={`${run.name}-${run.system}-${run.model}`.replace(/[^\w.-]+/g, "_")}
      data={{
        scatter: explorationScatter(units),
        byDifficulty: exOverBreakdown(units, (t) => t.difficulty, difficultyOrder),
        byDatabase: exOverBreakdown(units, (t) => t.dbId),
        byRole: callsBars(roleTotals),
        byTool: callsBars(tools.map((t) => ({ label: t.tool, calls: t.calls }))),
      }}
    />
  );
}

/** The run's custom scores (docs/scores.md), the same summaries as `GET /api/v1/runs/{id}/scores`. */
export async function ScoresSection({ run }: { run: Run }) {
  const scores = await summarizeRunScores(await getSql(), [run.id]);
  if (!scores.length)
    return (
      <p className="text-sm text-zinc-600" data-testid="scores-none">
        No custom scores on this run&apos;s traces: set them on a question&apos;s page, with{" "}
        <code>metron score import</code>, or through the API (
        <a className="text-blue-700 hover:underline" href="/api-docs">
          POST /api/v1/scores
        </a>
        ).
      </p>
    );
  const view = scoresView([{ name: run.name, simulated: isSimulated(run.config), system: run.system, scores }], {
    caption: `Scores of run ${run.name} (${run.system}, ${run.model}).`,
    label: "tab:scores",
  });
  return (
    <ScoresPanel
      {...view}
      fileName={`${run.name}-scores`.replace(/[^\w.-]+/g, "_")}
      source={`run ${run.name} (${run.system} · ${run.model})`}
    />
  );
}

export async function HistorySection({ runId }: { runId: string }) {
  const changes = await listRunChanges(await getSql(), runId);
  if (changes.length === 0) return null;
  return (
    <section className="space-y-1" data-testid="run-history">
      <h2 className="font-semibold">History</h2>
      <ul className="text-xs text-zinc-700">
        {changes.map((c, i) => (
          <li key={i}>
            <LocalTime iso={c.at} /> · {c.who} · {c.change}
          </li>
        ))}
      </ul>
    </section>
  );
}
