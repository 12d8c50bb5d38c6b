import type { Sql } from "@/lib/db/sql";
import { many, one, qb } from "@/lib/db/typed";
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

export const STEP_PAGE_SIZE = 200;

export async function listStepSummaries(
  sql: Sql,
  traceId: string,
  from: number,
  limit = STEP_PAGE_SIZE,
): Promise<StepSummary[]> {
  const q = qb(sql);
  const rows = await many(
    sql,
    q
      .selectFrom("steps")
      .select((eb) => [
        "seq",
        "type",
        "tool",
        "tool_role as toolRole",
        eb.fn<string | null>("substr", ["args", eb.lit(1), eb.lit(2000)]).as("args"),
        "tables",
        "exploratory",
        "empty_result as emptyResult",
        "refines",
        eb.fn<string | null>("substr", ["error", eb.lit(1), eb.lit(300)]).as("error"),
        "role",
        eb.fn<string | null>("substr", ["content", eb.lit(1), eb.lit(400)]).as("content"),
        eb.fn<number | null>("length", ["content"]).as("contentSize"),
        "input_tokens as inputTokens",
        "output_tokens as outputTokens",
        "reasoning_tokens as reasoningTokens",
        "duration_ms as durationMs",
        "started_at as startedAt",
        "result_size as resultSize",
      ])
      .where("trace_id", "=", traceId)
      .orderBy("seq")
      .limit(limit)
      .offset(from),
  );
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
  return one(
    sql,
    qb(sql)
      .selectFrom("steps as s")
      .leftJoin("blobs as b", "b.hash", "s.result_blob")
      .select((eb) => [
        "s.seq",
        "s.type",
        "s.tool",
        "s.args",
        eb.fn.coalesce("s.result", "b.content").as("result"),
        "s.error",
        "s.role",
        "s.content",
        "s.model",
        "s.meta",
      ])
      .where("s.trace_id", "=", traceId)
      .where("s.seq", "=", seq),
  );
}

/** The steps that touched a table, for the table strip (only the small columns). */
export async function listStripSteps(
  sql: Sql,
  traceId: string,
): Promise<{ seq: number; tables: string[]; exploratory: boolean }[]> {
  const rows = await many(
    sql,
    qb(sql)
      .selectFrom("steps")
      .select(["seq", "tables", "exploratory"])
      .where("trace_id", "=", traceId)
      .where("tables", "is not", null)
      .orderBy("seq"),
  );
  return rows.map((r) => ({ seq: r.seq, tables: JSON.parse(r.tables!), exploratory: Number(r.exploratory) === 1 }));
}

export async function getStepStats(
  sql: Sql,
  traceId: string,
): Promise<{ count: number; maxDurationMs: number | null; firstStartedAt: string | null }> {
  const row = await one(
    sql,
    qb(sql)
      .selectFrom("steps")
      .select((eb) => [
        eb.fn.countAll<number>().as("count"),
        eb.fn.max("duration_ms").as("maxDurationMs"),
        eb.fn.min("started_at").as("firstStartedAt"),
      ])
      .where("trace_id", "=", traceId),
  );
  return {
    count: Number(row?.count ?? 0),
    maxDurationMs: row?.maxDurationMs ?? null,
    firstStartedAt: row?.firstStartedAt ?? null,
  };
}

/** A trace's tool calls for step alignment (lib/trace/align.ts): tool, tables touched, SQL or arguments. */
export async function listAlignSteps(sql: Sql, traceId: string, max = 3000): Promise<AlignStep[]> {
  const rows = await many(
    sql,
    qb(sql)
      .selectFrom("steps")
      .select((eb) => [
        "seq",
        "tool",
        "tables",
        eb.fn<string | null>("substr", ["args", eb.lit(1), eb.lit(4000)]).as("args"),
      ])
      .where("trace_id", "=", traceId)
      .where("type", "=", "tool_call")
      .orderBy("seq")
      .limit(max),
  );
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
