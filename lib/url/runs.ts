/** URL state of the runs and traces tables, shared by server pages and client tables. */
import { parseAsBoolean, parseAsInteger, parseAsString, parseAsStringLiteral } from "nuqs/server";

export const runSortKeys = [
  "name",
  "system",
  "model",
  "traces",
  "questions",
  "correct",
  "over",
  "tokens",
  "created",
] as const;
export type RunSortKey = (typeof runSortKeys)[number];

export const runsSearchParams = {
  sort: parseAsStringLiteral(runSortKeys).withDefault("created"),
  dir: parseAsStringLiteral(["asc", "desc"] as const).withDefault("desc"),
  system: parseAsString,
  model: parseAsString,
  /** Archived runs are hidden unless asked for. */
  archived: parseAsBoolean.withDefault(false),
  page: parseAsInteger.withDefault(1),
};

/** Runs per page of the home page's table (issue 36: a lab's store holds hundreds of runs). */
export const RUNS_PAGE_SIZE = 50;

export const traceSortKeys = [
  "question",
  "db",
  "steps",
  "tools",
  "exploratory",
  "over",
  "extra",
  "empty",
  "tokens",
  "outcome",
] as const;
export type TraceSortKey = (typeof traceSortKeys)[number];

export const tracesSearchParams = {
  sort: parseAsStringLiteral(traceSortKeys).withDefault("question"),
  dir: parseAsStringLiteral(["asc", "desc"] as const).withDefault("asc"),
  page: parseAsInteger.withDefault(1),
  failing: parseAsBoolean.withDefault(false),
  extra: parseAsBoolean.withDefault(false),
  over: parseAsBoolean.withDefault(false),
  db: parseAsString,
  difficulty: parseAsString,
  /** A search (lib/search/query.ts) the questions must match, within this run. */
  q: parseAsString,
  /** Only traces carrying this label. */
  label: parseAsString,
  /** K of Pass@K and Majority@K (default: the most samples a question has). */
  k: parseAsInteger,
};

export const TRACES_PAGE_SIZE = 50;

export interface TraceFilters {
  failing: boolean;
  extra: boolean;
  over: boolean;
  db: string | null;
  difficulty: string | null;
  /** Only these traces (a search's matches); null for no restriction. */
  traceIds?: string[] | null;
  label?: string | null;
}

export function runPath(runId: string): string {
  return `/runs/${encodeURIComponent(runId)}`;
}

/** The page of `rows` a URL's `page` asks for, clamped to the pages there are (page 1 of 1 when there are none). */
export function pageOf<T>(rows: readonly T[], page: number, size: number): { rows: T[]; page: number; pages: number } {
  const pages = Math.max(1, Math.ceil(rows.length / size));
  const at = Math.min(Math.max(1, Math.floor(page) || 1), pages);
  return { rows: rows.slice((at - 1) * size, at * size), page: at, pages };
}
