import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { Suspense } from "react";
import { createLoader } from "nuqs/server";
import { isSimulated, SimulatedBadge } from "@/components/ui/simulated-badge";
import { DEMO_DATASET } from "@/lib/demo/names";
import { tracesSearchParams } from "@/lib/url/runs";
import { loadRun } from "./load-run";
import {
  ChartsSection,
  HistorySection,
  Pending,
  QuestionsSection,
  ScoresSection,
  SummarySection,
  SweepFormSection,
  SweepSection,
} from "./sections";

const loadParams = createLoader(tracesSearchParams);

export async function generateMetadata({ params }: PageProps<"/runs/[runId]">): Promise<Metadata> {
  const run = await loadRun((await params).runId);
  return { title: run ? `${run.name} · ${run.system} · ${run.model} — Metron` : "Run not found — Metron" };
}

// An unknown run answers 404: checked before the streamed body starts, so the status is the real one. Then the
// header, and each section in a <Suspense> of its own (sections.tsx), streamed as it is ready.
export default async function RunPage({ params, searchParams }: PageProps<"/runs/[runId]">) {
  await connection();
  const run = await loadRun((await params).runId);
  if (!run) notFound();
  const query = await loadParams(searchParams);
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
      <Suspense fallback={null}>
        <SweepSection runId={run.id} />
      </Suspense>
      <Suspense fallback={<Pending what="the run's summary" />}>
        <SummarySection run={run} k={query.k} />
      </Suspense>
      {run.datasetId && (
        <Suspense fallback={<Pending what="the sweep form" />}>
          <SweepFormSection run={{ ...run, datasetId: run.datasetId }} query={query} />
        </Suspense>
      )}
      <section className="space-y-2">
        <h2 className="font-semibold">Questions</h2>
        <Suspense fallback={<Pending what="the questions" />}>
          <QuestionsSection run={run} query={query} />
        </Suspense>
      </section>
      <section className="space-y-2" aria-labelledby="run-charts-heading">
        <h2 id="run-charts-heading" className="font-semibold">
          Charts
        </h2>
        <Suspense fallback={<Pending what="the charts" />}>
          <ChartsSection run={run} />
        </Suspense>
      </section>
      <section className="space-y-2" aria-labelledby="run-scores-heading">
        <h2 id="run-scores-heading" className="font-semibold">
          Scores
        </h2>
        <Suspense fallback={<Pending what="the scores" />}>
          <ScoresSection run={run} />
        </Suspense>
      </section>
      <Suspense fallback={null}>
        <HistorySection runId={run.id} />
      </Suspense>
    </div>
  );
}
