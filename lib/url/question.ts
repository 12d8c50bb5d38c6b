/** The question page's URL state and permalinks. */
import { parseAsInteger } from "nuqs/server";

export const questionSearchParams = {
  sample: parseAsInteger.withDefault(0),
  step: parseAsInteger,
};

export function questionPath(runId: string, questionId: string, opts: { sample?: number; step?: number } = {}): string {
  const params = new URLSearchParams();
  if (opts.sample) params.set("sample", String(opts.sample));
  if (opts.step !== undefined) params.set("step", String(opts.step));
  const query = params.toString();
  return `/runs/${encodeURIComponent(runId)}/questions/${encodeURIComponent(questionId)}${query ? `?${query}` : ""}`;
}
