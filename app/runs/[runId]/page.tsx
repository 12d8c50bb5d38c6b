import { notFound } from "next/navigation";
import { connection } from "next/server";
import { Suspense } from "react";
import { createLoader } from "nuqs/server";
import { EvaluateButton } from "@/components/runs/evaluate-button";
import { RunSummary } from "@/components/runs/run-summary";
import { TracesTable } from "@/components/runs/traces-table";
import { getDb } from "@/lib/db/client";
import { getRun, getRunAggregates } from "@/lib/db/queries/runs";
import { listTraces } from "@/lib/db/queries/traces";
import { TRACES_PAGE_SIZE, tracesSearchParams } from "@/lib/url/runs";

const loadParams = createLoader(tracesSearchParams);

export default function RunPage(props: PageProps<"/runs/[runId]">) {
  return (
    <Suspense fallback={<p className="text-sm text-zinc-500">Loading run…</p>}>
      <Run {...props} />
    </Suspense>
  );
}

async function Run({ params, searchParams }: PageProps<"/runs/[runId]">) {
  await connection();
  const { runId } = await params;
  const db = getDb();
  const run = await getRun(db, runId);
  if (!run) notFound();
  const query = await loadParams(searchParams);
  const { rows, total } = listTraces(db, run.id, { ...query, pageSize: TRACES_PAGE_SIZE });
  const aggregates = getRunAggregates(db, run.id);
  return (
    <div className="space-y-4">
      <header>
        <h1 className="text-xl font-semibold">{run.name}</h1>
        <p className="text-sm text-zinc-600">
          System <strong>{run.system}</strong> · model <strong>{run.model}</strong>
          {run.datasetId ? <> · dataset <a className="text-blue-700 hover:underline" href={`/datasets?dataset=${encodeURIComponent(run.datasetId)}`}>{run.datasetId}</a></> : run.benchmark ? <> · benchmark <strong>{run.benchmark}</strong> (no dataset of that name imported)</> : " · no dataset linked"}
        </p>
      </header>
      <RunSummary a={aggregates} hasDataset={Boolean(run.datasetId)} />
      <EvaluateButton runId={run.id} disabledReason={run.datasetId ? undefined : "Import the run's dataset (metron dataset import) to evaluate it"} />
      <TracesTable rows={rows} total={total} pageSize={TRACES_PAGE_SIZE} />
    </div>
  );
}
