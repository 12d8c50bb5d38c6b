import { count } from "@/lib/text/count";
import type { Metadata } from "next";
import { TableStripLegend } from "@/components/traces/table-strip";
import { readerFormats } from "@/components/ui/reader-locale";
import Link from "next/link";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { Suspense } from "react";
import { createLoader, parseAsArrayOf, parseAsInteger, parseAsString } from "nuqs/server";
import { ScrollTogether } from "@/components/compare/scroll-together";
import { OutcomeBadge } from "@/components/ui/outcome-badge";
import { isSimulated, SimulatedBadge } from "@/components/ui/simulated-badge";
import { SqlCompare } from "@/components/traces/sql-compare";
import { TraceExplorer } from "@/components/traces/trace-explorer";
import { getSql } from "@/lib/db/store";
import { getQuestionTrace } from "@/lib/db/queries/question-traces";
import { getRun } from "@/lib/db/queries/runs";
import { getStepStats, listAlignSteps, listStepSummaries, listStripSteps } from "@/lib/db/queries/steps";
import { AlignedSteps } from "@/components/compare/aligned-steps";
import { alignSteps } from "@/lib/trace/align";
import { anyRunHasQuestion } from "@/lib/db/queries/traces";
import { allGoldSeenAt, buildTableStrip } from "@/lib/metrics/table-strip";
import { questionPath } from "@/lib/url/question";

// `samples` gives each run its own sample (a rerun is a later sample of its question); else `sample` for all.
const loadParams = createLoader({
  runs: parseAsArrayOf(parseAsString, ",").withDefault([]),
  sample: parseAsInteger.withDefault(0),
  samples: parseAsArrayOf(parseAsInteger, ","),
});

export async function generateMetadata({ params }: PageProps<"/compare/questions/[questionId]">): Promise<Metadata> {
  return { title: `Question ${decodeURIComponent((await params).questionId)} side by side — Metron` };
}

// A question that none of the given runs has answers 404 before the streamed body starts.
export default async function SideBySidePage(props: PageProps<"/compare/questions/[questionId]">) {
  await connection();
  const questionId = decodeURIComponent((await props.params).questionId);
  const { runs } = await loadParams(props.searchParams);
  const sql = await getSql();
  if (!(await anyRunHasQuestion(sql, runs, questionId))) notFound();
  return (
    <Suspense fallback={<p className="text-sm text-zinc-500">Loading…</p>}>
      <SideBySide {...props} />
    </Suspense>
  );
}

async function SideBySide({ params, searchParams }: PageProps<"/compare/questions/[questionId]">) {
  await connection();
  const f = await readerFormats();
  const questionId = decodeURIComponent((await params).questionId);
  const { runs: runIds, sample, samples } = await loadParams(searchParams);
  const sql = await getSql();
  const columns = [];
  for (const [i, id] of runIds.entries()) {
    const run = await getRun(sql, id);
    const s = samples?.[i] ?? sample;
    const trace = run && (await getQuestionTrace(sql, id, questionId, s));
    columns.push({ id, run, trace, sample: s });
  }
  const found = await Promise.all(
    columns
      .filter((c) => c.run && c.trace)
      .map(async (c) => ({
        ...c,
        strip: await listStripSteps(sql, c.trace!.id),
        stats: await getStepStats(sql, c.trace!.id),
        steps: await listStepSummaries(sql, c.trace!.id, 0),
      })),
  );
  if (found.length === 0) notFound();
  const alignment =
    found.length >= 2
      ? alignSteps(await listAlignSteps(sql, found[0].trace!.id), await listAlignSteps(sql, found[1].trace!.id))
      : null;
  const text = found[0].trace!.questionText;
  return (
    <div className="space-y-4">
      <p className="text-sm">
        <Link className="text-blue-700 hover:underline" href={`/compare?runs=${runIds.join(",")}`}>
          ← compare
        </Link>
      </p>
      <h1 className="text-lg font-semibold">
        Question <span className="font-mono">{questionId}</span>
        {sample ? ` · sample ${sample}` : ""}: {text ?? ""}
      </h1>
      {columns
        .filter((c) => !c.trace)
        .map((c) => (
          <p key={c.id} className="text-sm text-zinc-600">
            Run {c.run ? `${c.run.system} · ${c.run.model}` : c.id} has no trace for this question.
          </p>
        ))}
      {found.length >= 2 && (
        <AlignedSteps
          alignment={alignment!}
          left={{
            label: `${found[0].run!.system} · ${found[0].run!.model}${found[0].sample ? ` #${found[0].sample}` : ""}`,
            href: (seq) => questionPath(found[0].run!.id, questionId, { sample: found[0].sample, step: seq }),
          }}
          right={{
            label: `${found[1].run!.system} · ${found[1].run!.model}${found[1].sample ? ` #${found[1].sample}` : ""}${found.length > 2 ? " (the first two runs are aligned)" : ""}`,
            href: (seq) => questionPath(found[1].run!.id, questionId, { sample: found[1].sample, step: seq }),
          }}
        />
      )}
      <TableStripLegend />
      <ScrollTogether>
        <div
          className="grid gap-3"
          style={{ gridTemplateColumns: `repeat(${found.length}, minmax(0, 1fr))` }}
          data-testid="side-by-side"
        >
          {found.map(({ run, trace, sample: s, strip, stats, steps }) => {
            const t = trace!;
            const sets = t.tableSets ?? null;
            return (
              <section key={run!.id} className="min-w-0 space-y-2">
                <header className="text-sm">
                  <Link
                    className="font-medium text-blue-700 hover:underline"
                    href={questionPath(run!.id, questionId, { sample: s })}
                  >
                    {run!.name} · {run!.system} · {run!.model}
                    {s ? ` #${s}` : ""}
                  </Link>
                  {isSimulated(run!.config) && <SimulatedBadge className="ml-1" />}
                  <div className="flex flex-wrap items-center gap-2 text-xs text-zinc-600">
                    <OutcomeBadge
                      exOutcome={t.exOutcome}
                      exError={t.exError}
                      recordedCorrect={t.recordedCorrect}
                      status={t.status}
                    />
                    exploratory {t.exploratoryCalls} / gold {t.goldCount ?? "?"} · {count(t.stepCount, "step")} ·{" "}
                    {t.tokensRecorded ? `${f.tokens(t.inputTokens + t.outputTokens)} tokens` : "tokens not recorded"}
                  </div>
                </header>
                <TraceExplorer
                  traceId={t.id}
                  total={stats.count}
                  initialSteps={steps}
                  initialDetail={null}
                  chips={buildTableStrip({
                    databaseTables: sets?.database ?? null,
                    gold: sets?.gold ?? null,
                    flagged: t.directives?.irrelevant_tables ?? null,
                    final: sets?.final ?? null,
                    steps: strip,
                  })}
                  gold={sets?.gold ?? null}
                  allGoldSeenAt={allGoldSeenAt(sets?.gold ?? null, strip)}
                  directives={t.directives ?? null}
                  maxDurationMs={stats.maxDurationMs}
                  stepInUrl={false}
                  legend={false}
                />
                <SqlCompare
                  traceId={t.id}
                  finalSql={t.finalSql}
                  goldSql={t.goldSql}
                  finalTables={sets?.final ?? null}
                  goldTables={sets?.gold ?? null}
                  goldError={sets?.goldError}
                  stacked
                />
              </section>
            );
          })}
        </div>
      </ScrollTogether>
    </div>
  );
}
