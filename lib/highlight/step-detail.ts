/** An expanded step, ready to show: arguments and results highlighted on the server (shiki), tables as cells. */
import type { StepDetail } from "@/lib/db/queries/steps";
import { resultView, type ResultView } from "@/lib/trace/step-view";
import { sqlOfArgs } from "@/lib/trace/tool-names";
import { formatSql } from "@/lib/sql/format";
import { highlight, prettyJson } from "./highlight";

export interface StepDetailView {
  seq: number;
  type: string;
  tool: string | null;
  role: string | null;
  model: string | null;
  /** Highlighted HTML (escaped by shiki). */
  sqlHtml: string | null;
  argsHtml: string | null;
  result: ResultView;
  resultHtml: string | null;
  error: string | null;
  content: string | null;
  meta: string | null;
}

/** The raw text of a step's field, for a page that shows only the start of it. */
const wholeText = (traceId: string, seq: number, field: "args" | "result") =>
  `/api/traces/${encodeURIComponent(traceId)}/text?field=${field}&seq=${seq}`;

export async function renderStepDetail(d: StepDetail, traceId: string): Promise<StepDetailView> {
  let args: unknown;
  try {
    args = d.args === null ? undefined : JSON.parse(d.args);
  } catch {
    args = d.args;
  }
  const sql = args === undefined ? undefined : sqlOfArgs(args);
  const pretty = d.args === null ? undefined : prettyJson(d.args);
  const result = resultView(d.result);
  return {
    seq: d.seq,
    type: d.type,
    tool: d.tool,
    role: d.role,
    model: d.model,
    sqlHtml: sql ? await highlight(formatSql(sql), "sql", wholeText(traceId, d.seq, "args")) : null,
    argsHtml: pretty && pretty !== "{}" ? await highlight(pretty, "json", wholeText(traceId, d.seq, "args")) : null,
    result,
    resultHtml:
      result.kind === "json" ? await highlight(result.text, "json", wholeText(traceId, d.seq, "result")) : null,
    error: d.error,
    content: d.content,
    meta: d.meta,
  };
}
