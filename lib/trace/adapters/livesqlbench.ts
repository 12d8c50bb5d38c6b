/**
 * The LiveSQLBench agent's results file: `{mode, metrics, results: [{instance_id, database, phase1_passed,
 * total_reward, elapsed_seconds, tool_trajectory: [{type, tool, args, result}]}]}`. One trace per result; the
 * outcome is `phase1_passed`; the final SQL is the `submit_sql` call's. No token usage is recorded.
 */
import type { Adapter, AdaptedTrace } from "./types";

type Result = {
  adk_events?: { type?: string; message?: string }[];
  task_id?: string;
  instance_id?: string;
  database?: string;
  phase1_passed?: boolean;
  total_reward?: number;
  elapsed_seconds?: number;
  steps_used?: number;
  tool_trajectory?: { type?: string; tool?: string; args?: unknown; result?: unknown }[];
};

export const liveSqlBenchAdapter: Adapter = {
  format: "livesqlbench",
  label: "LiveSQLBench agent results",
  signature: "a JSON object {results: [{instance_id, tool_trajectory: [...]}]}",
  adapt(text) {
    const data = JSON.parse(text.replace(/^\uFEFF/, "")) as {
      mode?: string;
      model?: string;
      config?: { model?: string; model_name?: string };
      results: Result[];
    };
    // The model, where the run recorded it (the official sample does not).
    const model = data.model ?? data.config?.model ?? data.config?.model_name;
    const traces: AdaptedTrace[] = data.results.map((r) => ({
      ...(model ? { run: { model } } : {}),
      // The question is the user message the agent received (its "User Query:" part).
      question: {
        id: r.instance_id ?? r.task_id,
        db_id: r.database,
        text: r.adk_events?.find((e) => e.type === "user_message")?.message,
      },
      steps: (r.tool_trajectory ?? []).map((t) => ({
        type: "tool_call" as const,
        tool: t.tool ?? "unknown",
        args: t.args,
        result: t.result,
      })),
      outcome: {
        correct: r.phase1_passed ?? null,
        status: (r.tool_trajectory ?? []).some((t) => t.tool === "submit_sql") ? "submitted" : "no_submission",
      },
      ...(r.elapsed_seconds !== undefined ? { duration_ms: Math.round(r.elapsed_seconds * 1000) } : {}),
      meta: { source_format: "livesqlbench", mode: data.mode, total_reward: r.total_reward, steps_used: r.steps_used },
    }));
    return { traces, warnings: [] };
  },
};
