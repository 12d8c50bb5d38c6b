/**
 * The question page's sections (issue 32): each an async server component in a <Suspense> of its own, reading what
 * it shows, so the steps arrive while the navigation, labels and reruns are still read (their reads overlap on
 * PostgreSQL). The trace and the run are read once per request (load-question.ts, load-run.ts).
 */
import Link from "next/link";
import { QuestionHeader } from "@/components/traces/question-header";
import { QuestionNav } from "@/components/traces/question-nav";
import { RerunPanel } from "@/components/traces/rerun-panel";
import { listProviders } from "@/lib/agent/providers";
import { RERUN_RUN_NAME, rerunDefaults } from "@/lib/agent/reruns";
import { PromoteRerun } from "@/components/traces/promote-rerun";
import { traceVerdict } from "@/lib/agent/verdict";
import { VerdictLine } from "@/components/traces/verdict-line";
import { LabelPanel } from "@/components/traces/label-panel";
import { listLabels, listNotes, listRunCauses } from "@/lib/labels/labels";
import { PRESET_CAUSES } from "@/lib/metrics/failure-taxonomy";
import { LocalTime } from "@/components/ui/local-time";
import { TraceExplorer } from "@/components/traces/trace-explorer";
import { isSimulated, SimulatedBadge } from "@/components/ui/simulated-badge";
import { getSql } from "@/lib/db/store";
import type { Run, TraceRow } from "@/lib/db/schema";
import { getNeighbours, listOtherRuns, listRerunsOf, listSamples } from "@/lib/db/queries/question-traces";
import { getStepDetail, getStepStats, listStepSummaries, listStripSteps, STEP_PAGE_SIZE } from "@/lib/db/queries/steps";
import { renderStepDetail } from "@/lib/highlight/step-detail";
import { allGoldSeenAt, buildTableStrip } from "@/lib/metrics/table-strip";
import { questionPath } from "@/lib/url/question";
import { runPath } from "@/lib/url/runs";
import { TraceScores } from "@/components/traces/trace-scores";
import { listScoreNames, listTraceScores } from "@/lib/scores/scores";
import { promoteRerun, saveNote, setTraceScore, toggleLabel } from "./actions";

/** What every section is given: the run, the trace, and where the page is. */
export interface QuestionView {
  run: Run;
  trace: TraceRow;
  runId: string;
  questionId: string;
  sample: number;
}

/** The label panel's server actions, handed to it as props (components do not import app/). */
const labelActions = { toggleLabel, saveNote };

/** Navigation, the question, its labels and note, its samples and the same question in other runs. */
export async function TopSection({ run, trace, runId, questionId, sample }: QuestionView) {
  const sql = await getSql();
  const sets = trace.tableSets ?? null;
  const [nav, others, samples, labels, causes, notes, scores, scoreNames] = await Promise.all([
    getNeighbours(sql, runId, questionId),
    listOtherRuns(sql, runId, questionId),
    listSamples(sql, runId, questionId),
    listLabels(sql, trace.id),
    listRunCauses(sql, run.id),
    listNotes(sql, trace.id),
    listTraceScores(sql, trace.id),
    listScoreNames(sql),
  ]);
  const href = (q?: string) => (q === undefined ? undefined : questionPath(runId, q));
  return (
    <>
      <QuestionNav
        links={{
          prev: href(nav.prev),
          next: href(nav.next),
          prevFailing: href(nav.prevFailing),
          nextFailing: href(nav.nextFailing),
          position: nav.position,
          total: nav.total,
          runHref: runPath(runId),
        }}
      />
      {isSimulated(run.config) && (
        <p className="rounded bg-fuchsia-50 px-2 py-1 text-sm text-fuchsia-900">
          <SimulatedBadge /> Simulated demo trace: produced by Metron&apos;s simulated policy, not by a model.
        </p>
      )}
      <QuestionHeader trace={trace} runName={`${run.name} · ${run.system} · ${run.model}`} sets={sets} />
      <LabelPanel
        key={trace.id}
        traceId={trace.id}
        initial={labels}
        causes={[...PRESET_CAUSES.map((c) => ({ key: c.key, label: c.label })), ...causes.map((label) => ({ label }))]}
        note={notes.find((n) => n.seq === -1)?.note ?? ""}
        actions={labelActions}
      />
      <TraceScores
        key={`scores-${trace.id}`}
        traceId={trace.id}
        initial={scores}
        names={scoreNames}
        setScore={setTraceScore}
      />
      {samples.length > 1 && (
        <p className="flex gap-2 text-sm">
          Samples:{" "}
          {samples.map((s) => (
            <Link
              key={s}
              href={questionPath(runId, questionId, { sample: s })}
              className={s === sample ? "font-semibold" : "text-blue-700 hover:underline"}
            >
              #{s}
            </Link>
          ))}
        </p>
      )}
      {others.length > 0 && (
        <p className="flex flex-wrap gap-2 text-sm" data-testid="other-runs">
          <span className="text-zinc-500">Same question in:</span>
          {others.map((o) => (
            <Link key={o.id} href={questionPath(o.id, questionId)} className="text-blue-700 hover:underline">
              {o.name} · {o.system} · {o.model}
              {o.kind === "reruns" ? " [reruns]" : o.kind === "sweep" ? " [sweep]" : ""}
              {o.exOutcome
                ? ` (${o.exOutcome.replace(/_/g, " ")})`
                : o.recordedCorrect !== null
                  ? ` (${o.recordedCorrect ? "correct" : "wrong"})`
                  : ""}
            </Link>
          ))}
        </p>
      )}
    </>
  );
}

/** The timeline of the trace's steps, its table strip, and the step the URL selects. */
export async function StepsSection({ trace, step }: QuestionView & { step: number | null }) {
  const sql = await getSql();
  const sets = trace.tableSets ?? null;
  const from = step !== null ? Math.max(0, step - STEP_PAGE_SIZE / 2) : 0;
  // Independent reads, at once: on PostgreSQL their round trips overlap.
  const [stripSteps, stats, detail, summaries] = await Promise.all([
    listStripSteps(sql, trace.id),
    getStepStats(sql, trace.id),
    step !== null ? getStepDetail(sql, trace.id, step) : Promise.resolve(undefined),
    listStepSummaries(sql, trace.id, from),
  ]);
  return (
    <TraceExplorer
      traceId={trace.id}
      total={stats.count}
      initialSteps={summaries}
      initialDetail={detail ? await renderStepDetail(detail, trace.id) : null}
      chips={buildTableStrip({
        databaseTables: sets?.database ?? null,
        gold: sets?.gold ?? null,
        flagged: trace.directives?.irrelevant_tables ?? null,
        final: sets?.final ?? null,
        steps: stripSteps,
      })}
      gold={sets?.gold ?? null}
      allGoldSeenAt={allGoldSeenAt(sets?.gold ?? null, stripSteps)}
      directives={trace.directives ?? null}
      maxDurationMs={stats.maxDurationMs}
    />
  );
}

/** The rerun panel and the reruns of this trace, each judged against it. */
export async function RerunsSection({ run, trace, runId, questionId }: QuestionView) {
  const sql = await getSql();
  const reruns = await listRerunsOf(sql, trace.id).then((list) =>
    Promise.all(list.map(async (r) => ({ ...r, verdict: await traceVerdict(sql, trace.id, r.traceId) }))),
  );
  return (
    <>
      {run.datasetId ? (
        <RerunPanel
          traceId={trace.id}
          runId={run.id}
          questionId={questionId}
          providers={listProviders().map((p) => ({
            id: p.id,
            label: p.label,
            available: p.available,
            models: p.models,
          }))}
          defaults={rerunDefaults(run)}
        />
      ) : (
        <p className="text-sm text-zinc-500">
          Link this run to its dataset to rerun the question (the rerun needs the question&apos;s database).
        </p>
      )}
      {reruns.length > 0 && (
        <section aria-labelledby="reruns-heading" className="space-y-2" data-testid="reruns-of-trace">
          <h2 id="reruns-heading" className="font-semibold">
            Reruns of this trace
          </h2>
          <p className="text-xs text-zinc-600">
            Each rerun is judged against this trace (execution accuracy when evaluated, else the recorded outcome). A
            rerun in a run of reruns stays outside every run figure and experiment; a promoted one counts in the figures
            of the run it was promoted into, as a sample of this question.
          </p>
          <ul className="space-y-1">
            {reruns.map((r) => (
              <li key={r.traceId} className="flex flex-wrap items-center gap-3 text-sm">
                <Link
                  className="text-blue-700 hover:underline"
                  href={questionPath(r.runId, questionId, r.sample ? { sample: r.sample } : {})}
                >
                  {r.runName} · {r.system} · {r.model}
                  {r.simulated ? " (simulated)" : ""} #{r.sample}
                </Link>
                <span className="text-xs text-zinc-600" data-testid="rerun-where">
                  {r.kind === "reruns"
                    ? "in a run of reruns: outside every figure"
                    : r.kind === "sweep"
                      ? "in a sweep's run: in figures only when the view includes sweeps"
                      : r.runId === runId
                        ? "in this run: counts in its figures"
                        : "promoted: counts in that run's figures"}
                </span>
                <LocalTime iso={r.createdAt} />
                <VerdictLine verdict={r.verdict} />
                {r.runName === RERUN_RUN_NAME && <PromoteRerun traceId={r.traceId} promote={promoteRerun} />}
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}
