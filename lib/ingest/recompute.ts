/**
 * Recomputes the stored per-trace metrics of a run from its stored steps: after a dataset is imported or
 * re-imported, a run's tool → role mapping changes, or the prices change. Nothing is lost: traces and steps
 * stay as uploaded; only the derived columns are rewritten, in one transaction per run.
 */
import type Database from "better-sqlite3";
import {
  MEASURED_COLUMNS,
  measuredValues,
  TraceMeasurer,
  ToolCounter,
  mergeRoles,
  type MeasurableTrace,
} from "./measure";
import { loadPrices } from "./prices-file";

interface TraceRow {
  id: string;
  question_id: string;
  db_id: string | null;
  gold_sql: string | null;
  final_sql: string | null;
  directives: string | null;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
}

export function recomputeRun(sqlite: Database.Database, runId: string): { traces: number } {
  const run = sqlite
    .prepare("SELECT id, model, benchmark, dataset_id AS datasetId, tool_roles AS roles FROM runs WHERE id = ?")
    .get(runId) as
    { id: string; model: string; benchmark: string | null; datasetId: string | null; roles: string | null } | undefined;
  if (!run) throw new Error(`no run ${runId}`);
  const measurer = new TraceMeasurer(sqlite, loadPrices(), run.datasetId ?? undefined);
  const roles = mergeRoles(run.roles ? JSON.parse(run.roles) : null);
  const traces = sqlite
    .prepare(
      "SELECT id, question_id, db_id, gold_sql, final_sql, directives, input_tokens, output_tokens, cached_input_tokens FROM traces WHERE run_id = ?",
    )
    .all(runId) as TraceRow[];
  const stepsOf = sqlite.prepare(
    "SELECT seq, type, tool, args, empty_result AS empty FROM steps WHERE trace_id = ? ORDER BY seq",
  );
  const updateTrace = sqlite.prepare(`UPDATE traces SET ${MEASURED_COLUMNS.map((c) => `${c} = ?`).join(", ")},
    db_id = coalesce(db_id, ?), question_text = coalesce(question_text, ?), evidence = coalesce(evidence, ?), gold_sql = coalesce(gold_sql, ?), difficulty = coalesce(difficulty, ?)
    WHERE id = ?`);
  const updateStep = sqlite.prepare(
    "UPDATE steps SET tool_role = ?, tables = ?, exploratory = ?, empty_result = ?, refines = ? WHERE trace_id = ? AND seq = ?",
  );
  const tools = new ToolCounter();
  try {
    sqlite.transaction(() => {
      sqlite.prepare("DELETE FROM run_tool_counts WHERE run_id = ?").run(runId);
      for (const t of traces) {
        const steps = stepsOf.all(t.id) as {
          seq: number;
          type: string;
          tool: string | null;
          args: string | null;
          empty: number | null;
        }[];
        const trace: MeasurableTrace = {
          run: { benchmark: run.benchmark ?? undefined, model: run.model },
          question: { id: t.question_id, db_id: t.db_id ?? undefined, gold_sql: t.gold_sql ?? undefined },
          final_sql: t.final_sql,
          directives: t.directives ? JSON.parse(t.directives) : undefined,
          usage: {
            input_tokens: t.input_tokens,
            output_tokens: t.output_tokens,
            cached_input_tokens: t.cached_input_tokens,
          },
          steps: steps.map((s) => ({
            type: s.type,
            tool: s.tool ?? undefined,
            args: s.args === null ? undefined : JSON.parse(s.args),
            empty: s.empty === null ? null : s.empty === 1,
          })),
        };
        const measurement = measurer.measure(trace, roles);
        const { steps: classes, question: dq, empty, probes } = measurement;
        tools.add(
          runId,
          classes.filter((c) => c !== null).map((c) => [c.tool, c.role]),
        );
        updateTrace.run(
          ...measuredValues(measurement),
          dq?.dbId ?? null,
          dq?.text ?? null,
          dq?.evidence ?? null,
          dq?.goldSql ?? null,
          dq?.difficulty ?? null,
          t.id,
        );
        steps.forEach((s, i) => {
          const c = classes[i];
          const refined = probes.refines[i];
          // A step that stopped being a probe (its role changed) keeps its stored emptiness for when it is one again.
          const e = empty[i] ?? (s.empty === null ? null : s.empty === 1);
          updateStep.run(
            c?.role ?? null,
            c && c.tables.length ? JSON.stringify(c.tables) : null,
            c?.exploratory ? 1 : 0,
            e === null ? null : e ? 1 : 0,
            refined === null ? null : steps[refined].seq,
            t.id,
            s.seq,
          );
        });
      }
      tools.flush(sqlite);
      sqlite.prepare("UPDATE runs SET version = version + 1 WHERE id = ?").run(runId);
    })();
  } finally {
    measurer.close();
  }
  return { traces: traces.length };
}
