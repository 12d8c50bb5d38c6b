import { parseAsArrayOf, parseAsInteger, parseAsString, parseAsStringLiteral } from "nuqs/server";

export const compareSearchParams = {
  runs: parseAsArrayOf(parseAsString, ",").withDefault([]),
  baseline: parseAsString,
  show: parseAsStringLiteral(["all", "regressions", "fixes"] as const).withDefault("all"),
  db: parseAsString,
  difficulty: parseAsString,
  /** Only questions whose trace carries this label in one of the runs. */
  label: parseAsString,
  page: parseAsInteger.withDefault(1),
};

export const COMPARE_PAGE_SIZE = 50;

export function compareQuestionPath(questionId: string, runs: string[], sample = 0): string {
  const params = new URLSearchParams({ runs: runs.join(",") });
  if (sample) params.set("sample", String(sample));
  return `/compare/questions/${encodeURIComponent(questionId)}?${params.toString().replace(/%2C/g, ",")}`;
}
