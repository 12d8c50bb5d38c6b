import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { Suspense } from "react";
import { createLoader } from "nuqs/server";
import { ResultsCompare } from "@/components/traces/results-compare";
import { SqlCompare } from "@/components/traces/sql-compare";
import { questionSearchParams } from "@/lib/url/question";
import { loadRun } from "../../load-run";
import { Pending } from "@/components/ui/pending";
import { loadQuestionTrace } from "./load-question";
import { DirectiveExplanationPanel } from "@/components/traces/directive-explanation";
import { explainDirectives } from "@/lib/environment/directives/explain";
import { RerunsSection, StepsSection, TopSection } from "./sections";

const loadParams = createLoader(questionSearchParams);

export async function generateMetadata({
  params,
}: PageProps<"/runs/[runId]/questions/[questionId]">): Promise<Metadata> {
  const { runId, questionId } = await params;
  const run = await loadRun(runId);
  return {
    title: run ? `Question ${decodeURIComponent(questionId)} · ${run.name} — Metron` : "Question not found — Metron",
  };
}

/**
 * A question of a run: a short shell (the 404 check, then the answer against the gold) and three sections that
 * stream in as they are read (sections.tsx). An unknown run or question answers 404 before the body starts.
 */
export default async function QuestionPage({
  params,
  searchParams,
}: PageProps<"/runs/[runId]/questions/[questionId]">) {
  await connection();
  const { runId, questionId: rawId } = await params;
  const questionId = decodeURIComponent(rawId);
  const { sample, step } = await loadParams(searchParams);
  const [run, trace] = await Promise.all([loadRun(runId), loadQuestionTrace(runId, questionId, sample)]);
  if (!run || !trace) notFound();
  const sets = trace.tableSets ?? null;
  const view = { run, trace, runId, questionId, sample };
  const explanation = explainDirectives(
    trace.directives,
    trace.meta?.["directives.explanation"],
    sets?.database ?? null,
  );
  return (
    <div className="space-y-5">
      <Suspense fallback={<Pending what="the question" />}>
        <TopSection {...view} />
      </Suspense>
      <Suspense fallback={<Pending what="the steps" />}>
        <StepsSection {...view} step={step} />
      </Suspense>
      {explanation && <DirectiveExplanationPanel explanation={explanation} />}
      {/* What the agent submitted against the gold, right under its steps; the rerun panel after. */}
      <SqlCompare
        traceId={trace.id}
        finalSql={trace.finalSql}
        goldSql={trace.goldSql}
        finalTables={sets?.final ?? null}
        goldTables={sets?.gold ?? null}
        goldError={sets?.goldError}
      />
      <ResultsCompare
        traceId={trace.id}
        unavailable={
          !trace.finalSql
            ? "Nothing to run: the trace has no final SQL."
            : !trace.goldSql
              ? "Nothing to compare with: the question has no gold SQL (link the run to its dataset)."
              : null
        }
      />
      <Suspense fallback={<Pending what="the reruns" />}>
        <RerunsSection {...view} />
      </Suspense>
    </div>
  );
}
