import type { Metadata } from "next";
import { TableExport } from "@/components/ui/table-export";
import { runSummaryTable } from "@/lib/metrics/run-metrics";
import { toLatex, toMarkdown } from "@/lib/metrics/table-export";
import { notFound } from "next/navigation";
import { RunCuration } from "@/components/runs/run-curation";
import { LocalTime } from "@/components/ui/local-time";
import { listDatasets } from "@/lib/db/queries/datasets";
import { connection } from "next/server";
import { Suspense } from "react";
import { createLoader, createSerializer } from "nuqs/server";
import { EvaluateButton } from "@/components/runs/evaluate-button";
import { defaultCompareMode } from "@/lib/eval/evaluate-run";
import { LazyRunCharts } from "@/components/runs/run-charts-lazy";
import { RunSummary } from "@/components/runs/run-summary";
import { DirectiveSavingsPanel } from "@/components/runs/directive-savings";
import { getDirectiveSavings } from "@/lib/environment/directive-savings";
import { TracesTable } from "@/components/runs/traces-table";
import { isSimulated, SimulatedBadge } from "@/components/ui/simulated-badge";
import { DEMO_DATASET } from "@/lib/demo/seed";
import { getSql } from "@/lib/db/store";
import { getRunAggregates, listRunChanges } from "@/lib/db/queries/runs";
import { loadRun } from "./load-run";
import { applyRunRoles, linkDataset, previewRunRoles, removeRun, saveRunIdentity, setRunArchived } from "./actions";

/** The curation panel's server actions, handed to it as props (a plain object: what React passes to the client). */
const curationActions = {
  saveRunIdentity,
  linkDataset,
  previewRunRoles,
  applyRunRoles,
  setRunArchived,
  removeRun,
};
import { listTraceFacets, listTraces } from "@/lib/db/queries/traces";
import { listRunToolCounts, loadTraceUnits } from "@/lib/db/queries/units";
import { callsBars, exOverBreakdown, explorationScatter } from "@/lib/metrics/run-charts";
import { difficultyOrder, sampleStats } from "@/lib/metrics/run-units";
import { ROLE_LABELS } from "@/lib/metrics/run-metrics";
import { TRACES_PAGE_SIZE, tracesSearchParams } from "@/lib/url/runs";
import { SweepForm } from "@/components/sweeps/sweep-form";
import { SweepProgress } from "@/components/sweeps/sweep-progress";
import { sweepFormSetup, sweepStatus } from "@/lib/agent/sweeps";
import { searchRunTraceIds } from "@/lib/search";

const loadParams = createLoader(tracesSearchParams);
const serialize = createSerializer(tracesSearchParams);

export async function generateMetadata({ params }: PageProps<"/runs/[runId]">): Promise<Metadata> {
  const run = await loadRun((await params).runId);
  return { title: run ? `${run.name} · ${run.system} · ${run.model} — Metron` : "Run not found — Metron" };
}

// An unknown run answers 404: checked before the streamed body starts, so the status is the real one.
export default async function RunPage(props: PageProps<"/runs/[runId]">) {
  await connection();
  if (!(await loadRun((await props.params).runId))) notFound();
  return (
    <Suspense fallback={<p className="text-sm text-zinc-500">Loading run…</p>}>
      <Run {...props} />
    </Suspense>
  );
}

async function Run({ params, searchParams }: PageProps<"/runs/[runId]">) {
  await connection();
  const { runId } = await params;
  const sql = await getSql();
  const run = await loadRun(runId);
  if (!run) notFound();
  const query = await loadParams(searchParams);
  const traceIds = query.q?.trim() ? await searchRunTraceIds(sql, run.id, query.q) : null;
  const filterParts = [
    query.failing && "failing",
    query.extra && "extra tables",
    query.over && "over-explored",
    query.db && `database ${query.db}`,
    query.difficulty && `difficulty ${query.difficulty}`,
    query.q && `search "${query.q}"`,
    query.label && `label ${query.label}`,
  ].filter(Boolean);
  // Independent reads, at once: on PostgreSQL their round trips overlap (on SQLite each runs as it is asked).
  const [{ rows, total }, aggregates, units, tools, facets, savings, changes, allDatasets, sweep, filteredRows] =
    await Promise.all([
      listTraces(sql, run.id, { ...query, traceIds, pageSize: TRACES_PAGE_SIZE }),
      getRunAggregates(sql, run.id),
      loadTraceUnits(sql, run.id),
      listRunToolCounts(sql, run.id),
      listTraceFacets(sql, run.id),
      getDirectiveSavings(sql, run.id),
      listRunChanges(sql, run.id),
      listDatasets(sql),
      sweepStatus(sql, run.id),
      filterParts.length
        ? listTraces(sql, run.id, { ...query, traceIds, page: 1, pageSize: 100_000 }).then((r) => r.rows)
        : Promise.resolve([]),
    ]);
  const roleTotals = Object.entries(ROLE_LABELS).map(([role, label]) => ({
    label,
    calls: tools.filter((t) => t.role === role).reduce((s, t) => s + t.calls, 0),
  }));
  const datasets = allDatasets.map((d) => ({ id: d.id, name: d.name }));
  const datasetFormat = allDatasets.find((d) => d.id === run.datasetId)?.format;
  const filtered = [...new Set(filteredRows.map((r) => r.questionId))];
  return (
    <div className="space-y-5">
      <header>
        <h1 className="flex items-center gap-2 text-xl font-semibold">
          {run.name}
          {isSimulated(run.config) && <SimulatedBadge />}
          {run.archivedAt && (
            <span
              className="rounded bg-zinc-200 px-1.5 py-0.5 text-xs font-normal text-zinc-700"
              data-testid="archived-badge"
            >
              archived
            </span>
          )}
        </h1>
        {(run.tags?.length ?? 0) > 0 && (
          <p className="mt-1 flex gap-1 text-xs">
            {run.tags!.map((t) => (
              <span key={t} className="rounded bg-blue-50 px-1.5 py-0.5 text-blue-900">
                {t}
              </span>
            ))}
          </p>
        )}
        {run.description && <p className="mt-1 whitespace-pre-wrap text-sm text-zinc-700">{run.description}</p>}
        {isSimulated(run.config) && (
          <p className="mt-1 rounded bg-fuchsia-50 px-2 py-1 text-sm text-fuchsia-900">
            Simulated demo: these traces were produced by Metron&apos;s simulated policy{" "}
            {run.datasetId === DEMO_DATASET
              ? "on the generated demo database"
              : run.datasetId
                ? `on the databases of dataset ${run.datasetId}`
                : "on no dataset's database"}
            , not by a model. They show the product; they are not results of a real agent.
          </p>
        )}
        <p className="text-sm text-zinc-600">
          System <strong>{run.system}</strong> · model <strong>{run.model}</strong>
          {run.datasetId ? (
            <>
              {" "}
              · dataset{" "}
              <a
                className="text-blue-700 hover:underline"
                href={`/datasets?dataset=${encodeURIComponent(run.datasetId)}`}
              >
                {run.datasetId}
              </a>
            </>
          ) : run.benchmark ? (
            <>
              {" "}
              · benchmark <strong>{run.benchmark}</strong> (no dataset of that name imported: gold tables come from the
              traces, if they carry gold SQL)
            </>
          ) : (
            " · no dataset linked: gold tables come from the traces, if they carry gold SQL"
          )}
          {" · "}
          <a className="text-blue-700 hover:underline" href={`/compare?runs=${encodeURIComponent(run.id)}`}>
            compare with other runs
          </a>
        </p>
      </header>
      {sweep && <SweepProgress initial={sweep} compact />}
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
        samples={sampleStats(units, query.k ?? undefined)}
        exSettings={run.exSettings ?? null}
      />
      <TableExport
        latex={toLatex(runSummaryTable({ ...run, simulated: isSimulated(run.config) }, aggregates))}
        markdown={toMarkdown(runSummaryTable({ ...run, simulated: isSimulated(run.config) }, aggregates))}
        fileName={`${run.name}-summary`.replace(/[^\w.-]+/g, "_")}
        testId="run-summary-export"
      />
      {savings && <DirectiveSavingsPanel savings={savings} />}
      <EvaluateButton
        runId={run.id}
        defaultMode={defaultCompareMode(datasetFormat)}
        disabledReason={run.datasetId ? undefined : "Link the run to a dataset (Edit this run, above) to evaluate it"}
      />
      {run.datasetId && (
        <SweepForm
          {...await sweepFormSetup(
            sql,
            run.datasetId,
            run,
            filtered.length ? { ids: filtered, description: filterParts.join(", ") } : undefined,
          )}
        />
      )}
      <section className="space-y-2">
        <h2 className="font-semibold">Questions</h2>
        <TracesTable
          rows={rows}
          total={total}
          pageSize={TRACES_PAGE_SIZE}
          databases={facets.databases}
          difficulties={facets.difficulties}
          csvHref={`/api/runs/${encodeURIComponent(run.id)}/traces.csv${serialize({ ...query, page: null, k: null })}`}
        />
      </section>
      {/* After the questions: the charts (and recharts) load as they scroll into view, not with the page. */}
      <section className="space-y-2" aria-labelledby="run-charts-heading">
        <h2 id="run-charts-heading" className="font-semibold">
          Charts
        </h2>
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
      </section>
      {changes.length > 0 && (
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
      )}
    </div>
  );
}
