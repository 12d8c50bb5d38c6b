import { SimulatedBadge } from "@/components/ui/simulated-badge";
import { isDemoDataset } from "@/lib/demo/names";
import { saveExperiment } from "./actions";
import type { Metadata } from "next";
import { TableExport } from "@/components/ui/table-export";
import { toLatex, toMarkdown } from "@/lib/metrics/table-export";
import { LocalTime } from "@/components/ui/local-time";
import { notFound } from "next/navigation";
import { FailureCauses } from "@/components/compare/failure-causes";
import { countLabels } from "@/lib/labels/labels";
import { causeBars } from "@/lib/metrics/failure-causes";
import { connection } from "next/server";
import { Suspense } from "react";
import { ExperimentControls } from "@/components/compare/experiment-controls";
import { OverviewCharts } from "@/components/compare/overview-charts";
import { OverviewMatrix } from "@/components/compare/overview-matrix";
import { getSql } from "@/lib/db/store";
import { listDatasets } from "@/lib/db/queries/datasets";
import { getExperiment, listExperiments, loadOverview } from "@/lib/db/queries/overview";
import { coveredRuns, overviewTable } from "@/lib/metrics/overview";
import { experimentsQuery, loadExperimentsParams } from "@/lib/url/experiments";
import { ScoresPanel } from "@/components/scores/scores-panel";
import { summarizeCellScores } from "@/lib/scores/scores";
import { scoresView } from "@/lib/metrics/scores";

export const metadata: Metadata = { title: "Experiments — Metron" };

// An unknown saved experiment answers 404 before the streamed body starts.
export default async function ExperimentsPage(props: PageProps<"/experiments">) {
  await connection();
  const { experiment } = await loadExperimentsParams(props.searchParams);
  if (experiment && !(await getExperiment(await getSql(), experiment))) notFound();
  return (
    <div className="space-y-6">
      <Suspense fallback={<p className="text-sm text-zinc-500">Loading…</p>}>
        <Overview {...props} />
      </Suspense>
    </div>
  );
}

async function Overview({ searchParams }: PageProps<"/experiments">) {
  await connection();
  const params = await loadExperimentsParams(searchParams);
  const sql = await getSql();
  const saved = params.experiment ? await getExperiment(sql, params.experiment) : undefined;
  if (params.experiment && !saved) notFound();
  const { runIds, groups } = await loadOverview(
    sql,
    saved
      ? { runIds: saved.runIds }
      : { dataset: params.dataset, withoutDataset: params.all, archived: params.archived, sweeps: params.sweeps },
  );
  const causes = await countLabels(sql, runIds);
  const cellScores = await Promise.all(groups.map((g) => summarizeCellScores(sql, g)));
  return (
    <>
      <div>
        <h1 className="text-xl font-semibold">{saved ? `Experiment: ${saved.name}` : "Experiments"}</h1>
        <p className="text-sm text-zinc-600">
          {saved ? (
            <>
              A saved set of {saved.runIds.length} runs (saved <LocalTime iso={saved.createdAt} />
              ): its figures change only if its runs do.{" "}
            </>
          ) : (
            "Every non-archived run with a dataset, by dataset: runs of the same model and system are pooled into one cell (a question's traces from several runs are its samples); reruns and sweeps stay out unless the view or an experiment includes their run. "
          )}
          Intervals are 95% bootstrap intervals over questions (none where a figure comes from a single question, for EX
          a single judged one, or where every question has the same value: it would only repeat the estimate).{" "}
          <a className="text-blue-700 hover:underline" href={`/api/export/overview.csv${experimentsQuery(params)}`}>
            Download CSV
          </a>{" "}
          (lists the runs of each cell).
        </p>
      </div>
      <ExperimentControls
        saveExperiment={saveExperiment}
        params={params}
        datasets={(await listDatasets(sql)).map((d) => ({ id: d.id, name: d.name }))}
        experiments={(await listExperiments(sql)).map((e) => ({ id: e.id, name: e.name }))}
        runIds={runIds}
        saved={Boolean(saved)}
      />
      {groups.length === 0 ? (
        <p className="text-sm text-zinc-600">
          No runs in this view: upload traces on the home page, link runs to a dataset, or show runs without a dataset.
        </p>
      ) : (
        groups.map((g, gi) => (
          <section key={g.group} className="space-y-3" aria-label={g.group}>
            <h2 className="text-lg font-semibold">
              {g.group}
              {isDemoDataset(g.group) && <SimulatedBadge className="ml-2 align-middle" />}
            </h2>
            <OverviewMatrix g={g} />
            <TableExport
              latex={toLatex(overviewTable(g))}
              markdown={toMarkdown(overviewTable(g))}
              fileName={`${g.group.replace(/[^\w.-]+/g, "_")}-matrix`}
              testId={`matrix-export-${g.group}`}
            />
            <OverviewCharts
              g={{ group: g.group, charts: g.charts }}
              source={`${g.group}${saved ? `, experiment "${saved.name}"` : ""}; runs: ${coveredRuns(g)}`}
            />
            {cellScores[gi].length > 0 && (
              <div className="space-y-1">
                <h3 className="font-semibold">Scores</h3>
                <ScoresPanel
                  {...scoresView(cellScores[gi], {
                    caption: `Scores per model and system, ${g.group}.`,
                    label: `tab:scores-${g.group.replace(/[^\w-]+/g, "-")}`,
                    rowLabel: "Model · system",
                  })}
                  fileName={`${g.group.replace(/[^\w.-]+/g, "_")}-scores`}
                  source={`${g.group}; runs: ${coveredRuns(g)}`}
                  testId={`scores-${g.group}`}
                />
              </div>
            )}
            {causes.some((c) => c.group === g.group) && (
              <div className="space-y-1" data-testid="failure-causes">
                <FailureCauses
                  group={g.group}
                  bars={causeBars(causes.filter((c) => c.group === g.group))}
                  source={`${g.group}; labels on the traces of runs: ${coveredRuns(g)}`}
                />
                <a
                  className="text-sm text-blue-700 hover:underline"
                  href={`/api/export/causes.csv${experimentsQuery(params)}`}
                >
                  Failure causes as CSV
                </a>
              </div>
            )}
          </section>
        ))
      )}
    </>
  );
}
