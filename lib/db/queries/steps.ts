import type { Sql } from "@/lib/db/sql";
import { summarizeArgs, summarizeContent } from "@/lib/trace/step-summary";
import type { AlignStep } from "@/lib/trace/align";
import { sqlOfArgs } from "@/lib/trace/tool-names";

/** What a timeline row shows: never the full arguments or result (those load when a step is expanded). */
export interface StepSummary {
  seq: number;
  type: string;
  tool: string | null;
  toolRole: string | null;
  summary: string;
  tables: string[];
  exploratory: boolean;
  /** A SQL probe whose result had no rows (true), had rows (false), or is not a probe / not recorded (null). */
  emptyResult: boolean | null;
  /** The seq of the empty-result probe this probe refines. */
  refines: number | null;
  error: string | null;
  role: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  reasoningTokens: number | null;
  durationMs: number | null;
  startedAt: string | null;
  resultSize: number;
  contentSize: number;
}

interface Row extends Omit<StepSummary, "summary" | "tables" | "exploratory" | "emptyResult"> {
  args: string | null;
  content: string | null;
  tables: string | null;
  exploratory: number;
  emptyResult: number | null;
}

export const STEP_PAGE_SIZE = 200;

export async function listStepSummaries(
  sql: Sql,
  traceId: string,
  from: number,
  limit = STEP_PAGE_SIZE,
): Promise<StepSummary[]> {
  const rows = (await sql.all(
    `SELECT seq, type, tool, tool_role AS toolRole, substr(args, 1, 2000) AS args, tables, exploratory, empty_result AS emptyResult, refines, substr(error, 1, 300) AS error,
      role, substr(content, 1, 400) AS content, length(content) AS contentSize, input_tokens AS inputTokens, output_tokens AS outputTokens,
      reasoning_tokens AS reasoningTokens, duration_ms AS durationMs, started_at AS startedAt, result_size AS resultSize
    FROM steps WHERE trace_id = ? ORDER BY seq LIMIT ? OFFSET ?`,
    [traceId, limit, from],
  )) as (Row & { contentSize: number | null })[];
  return rows.map(({ args, content, tables, exploratory, emptyResult, contentSize, ...r }) => ({
    ...r,
    emptyResult: emptyResult === null ? null : Number(emptyResult) === 1,
    summary: r.type === "tool_call" ? summarizeArgs(args) : summarizeContent(content),
    tables: tables ? JSON.parse(tables) : [],
    exploratory: Number(exploratory) === 1,
    contentSize: contentSize ?? 0,
  }));
}

export interface StepDetail {
  seq: number;
  type: string;
  tool: string | null;
  args: string | null;
  result: string | null;
  error: string | null;
  role: string | null;
  content: string | null;
  model: string | null;
  meta: string | null;
}

export async function getStepDetail(sql: Sql, traceId: string, seq: number): Promise<StepDetail | undefined> {
  return (await sql.get(
    `SELECT s.seq, s.type, s.tool, s.args, coalesce(s.result, b.content) AS result, s.error, s.role, s.content, s.model, s.meta
    FROM steps s LEFT JOIN blobs b ON b.hash = s.result_blob WHERE s.trace_id = ? AND s.seq = ?`,
    [traceId, seq],
  )) as StepDetail | undefined;
}

/** The steps that touched a table, for the table strip (only the small columns). */
export async function listStripSteps(
  sql: Sql,
  traceId: string,
): Promise<{ seq: number; tables: string[]; exploratory: boolean }[]> {
  return (
    (await sql.all(
      "SELECT seq, tables, exploratory FROM steps WHERE trace_id = ? AND tables IS NOT NULL ORDER BY seq",
      [traceId],
    )) as { seq: number; tables: string; exploratory: number }[]
  ).map((r) => ({ seq: r.seq, tables: JSON.parse(r.tables), exploratory: Number(r.exploratory) === 1 }));
}

export async function getStepStats(
  sql: Sql,
  traceId: string,
): Promise<{ count: number; maxDurationMs: number | null; firstStartedAt: string | null }> {
  return (await sql.get(
    "SELECT count(*) AS count, max(duration_ms) AS maxDurationMs, min(started_at) AS firstStartedAt FROM steps WHERE trace_id = ?",
    [traceId],
  )) as { count: number; maxDurationMs: number | null; firstStartedAt: string | null };
}

/** A trace's tool calls for step alignment (lib/trace/align.ts): tool, tables touched, SQL or arguments. */
export async function listAlignSteps(sql: Sql, traceId: string, max = 3000): Promise<AlignStep[]> {
  const rows = (await sql.all(
    "SELECT seq, tool, tables, substr(args, 1, 4000) AS args FROM steps WHERE trace_id = ? AND type = 'tool_call' ORDER BY seq LIMIT ?",
    [traceId, max],
  )) as { seq: number; tool: string | null; tables: string | null; args: string | null }[];
  return rows.map((r) => {
    let parsed: unknown = r.args;
    try {
      parsed = r.args === null ? undefined : JSON.parse(r.args);
    } catch {
      /* arguments that are not JSON are compared as text */
    }
    const sql = parsed === undefined ? undefined : sqlOfArgs(parsed);
    return {
      seq: r.seq,
      tool: r.tool ?? "tool",
      tables: r.tables ? (JSON.parse(r.tables) as string[]) : [],
      text: sql ?? r.args,
    };
  });
}
