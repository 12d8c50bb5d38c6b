import { getSql } from "@/lib/db/store";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { SweepProgress } from "@/components/sweeps/sweep-progress";
import { SimulatedBadge } from "@/components/ui/simulated-badge";
import { LocalTime } from "@/components/ui/local-time";
import { serverRunsWorker } from "@/lib/agent/jobs";
import { sweepStatus } from "@/lib/agent/sweeps";
import { experimentsQuery } from "@/lib/url/experiments";

export async function generateMetadata({ params }: PageProps<"/sweeps/[runId]">): Promise<Metadata> {
  const s = await sweepStatus(await getSql(), (await params).runId);
  return { title: s ? `${s.name} — Metron` : "Sweep not found — Metron" };
}

/** A sweep's page: its configuration and live progress, and, once it ends, the compare view against its source. */
export default async function SweepPage({ params }: PageProps<"/sweeps/[runId]">) {
  await connection();
  const { runId } = await params;
  const status = await sweepStatus(await getSql(), runId);
  if (!status) notFound();
  return (
    <div className="space-y-4">
      <header className="space-y-1">
        <h1 className="flex items-center gap-2 text-xl font-semibold">
          {status.name}
          {status.provider === "simulated" && <SimulatedBadge />}
        </h1>
        <p className="text-sm text-zinc-600">
          {status.selection.count} question{status.selection.count === 1 ? "" : "s"} of dataset{" "}
          <Link
            className="text-blue-700 hover:underline"
            href={`/datasets?dataset=${encodeURIComponent(status.datasetId)}`}
          >
            {status.datasetId}
          </Link>
          {status.sourceRunId && (
            <>
              {" "}
              ({status.selection.kind === "failing" ? "failing in" : "compared with"}{" "}
              <Link className="text-blue-700 hover:underline" href={`/runs/${encodeURIComponent(status.sourceRunId)}`}>
                {status.sourceRunName}
              </Link>
              )
            </>
          )}
          , started <LocalTime iso={status.createdAt} />. Its traces are a run of their own: outside the Experiments
          page until you{" "}
          <Link
            className="text-blue-700 hover:underline"
            href={`/experiments${experimentsQuery({ dataset: status.datasetId, sweeps: true })}`}
          >
            show sweep runs there
          </Link>{" "}
          (and save the view as an experiment).
        </p>
      </header>
      {status.state === "running" && !serverRunsWorker() && (
        <p className="rounded bg-amber-50 px-2 py-1 text-sm text-amber-900" data-testid="no-server-worker">
          This server runs no job worker (<code>METRON_WORKERS=0</code>): the sweep&apos;s jobs are taken by dedicated
          workers. If they stay queued, start one on this machine with <code>npm run metron -- worker</code>.
        </p>
      )}
      <SweepProgress initial={status} />
    </div>
  );
}
