import { cache } from "react";
import { getSql } from "@/lib/db/store";
import { getQuestionTrace } from "@/lib/db/queries/question-traces";

/**
 * A question's trace (one sample), read once per request: the 404 check, the header and every section ask for it,
 * and React's `cache` gives them the same row without another round trip.
 */
export const loadQuestionTrace = cache(async (runId: string, questionId: string, sample: number) =>
  getQuestionTrace(await getSql(), runId, questionId, sample),
);
