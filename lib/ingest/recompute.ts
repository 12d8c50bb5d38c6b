/**
 * Recomputes the stored per-trace metrics of a run from its stored steps: after a dataset is imported or
 * re-imported, a run's tool → role mapping changes, or the prices change. Nothing is lost: traces and steps
 * stay as uploaded; only the derived columns are rewritten, in one transaction per run.
 */
import type { Param, Sql } from "@/lib/db/sql";
import { insertArrays, many, one, qb, write } from "@/lib/db/typed";
import { addToolCounts, TOOL_COUNT_COLUMNS } from "./upload-writer";
import { refreshRunTotals } from "@/lib/db/run-totals";
import {
  openLookups,
  MEASURED_COLUMNS,
  measuredValues,
  TraceMeasurer,
  ToolCounter,
  countToolCalls,
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

export async function recomputeRun(sql: Sql, runId: string): Promise<{ traces: number }> {
  const q = qb(sql);
  const run = await one(
    sql,
    q
      .selectFrom("runs")
      .select(["id", "model", "benchmark", "dataset_id as datasetId", "tool_roles as roles"])
      .where("id", "=", runId),
  );
  if (!run) throw new Error(`no run ${runId}`);
  const lookups = await openLookups(sql);
  await lookups.prime(run.datasetId ?? run.benchmark);
  // Measured again against the run's link, never its benchmark's name: an unlinked run has no gold (issue 30).
  const measurer = new TraceMeasurer(lookups, loadPrices(), run.datasetId);
  const roles = mergeRoles(run.roles ? JSON.parse(run.roles) : null);
  const traces: TraceRow[] = await many(
    sql,
    q
      .selectFrom("traces")
      .select([
        "id",
        "question_id",
        "db_id",
        "gold_sql",
        "final_sql",
        "directives",
        "input_tokens",
        "output_tokens",
        "cached_input_tokens",
      ])
      .where("run_id", "=", runId),
  );
  // Compiled once, run per trace and per step: parameters in the order they appear (SET, then WHERE).
  const updateTrace = q
    .updateTable("traces")
    .set((eb) => ({
      ...Object.fromEntries(MEASURED_COLUMNS.map((c) => [c, null])),
      db_id: eb.fn.coalesce("db_id", eb.val<string | null>(null)),
      question_text: eb.fn.coalesce("question_text", eb.val<string | null>(null)),
      evidence: eb.fn.coalesce("evidence", eb.val<string | null>(null)),
      gold_sql: eb.fn.coalesce("gold_sql", eb.val<string | null>(null)),
      difficulty: eb.fn.coalesce("difficulty", eb.val<string | null>(null)),
    }))
    .where("id", "=", "")
    .compile().sql;
  const updateStep = q
    .updateTable("steps")
    .set({ tool_role: null, tables: null, exploratory: 0, empty_result: null, refines: null })
    .where("trace_id", "=", "")
    .where("seq", "=", 0)
    .compile().sql;
  const tools = new ToolCounter();
  try {
    await sql.transaction(async (tx) => {
      await write(tx, qb(tx).deleteFrom("run_tool_counts").where("run_id", "=", runId));
      for (const t of traces) {
        const steps = await many(
          tx,
          qb(tx)
            .selectFrom("steps")
            .select(["seq", "type", "tool", "args", "empty_result as empty"])
            .where("trace_id", "=", t.id)
            .orderBy("seq"),
        );
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
        tools.add(runId, countToolCalls(classes));
        await tx.compiled.run(updateTrace, [
          ...(measuredValues(measurement) as Param[]),
          dq?.dbId ?? null,
          dq?.text ?? null,
          dq?.evidence ?? null,
          dq?.goldSql ?? null,
          dq?.difficulty ?? null,
          t.id,
        ]);
        for (let i = 0; i < steps.length; i++) {
          const s = steps[i];
          const c = classes[i];
          const refined = probes.refines[i];
          // A step that stopped being a probe (its role changed) keeps its stored emptiness for when it is one again.
          const e = empty[i] ?? (s.empty === null ? null : s.empty === 1);
          await tx.compiled.run(updateStep, [
            c?.role ?? null,
            c && c.tables.length ? JSON.stringify(c.tables) : null,
            c?.exploratory ? 1 : 0,
            e === null ? null : e ? 1 : 0,
            refined === null ? null : steps[refined].seq,
            t.id,
            s.seq,
          ]);
        }
      }
      await insertArrays(tx, "run_tool_counts", TOOL_COUNT_COLUMNS, tools.drain(), addToolCounts);
      await write(
        tx,
        qb(tx)
          .updateTable("runs")
          .set((eb) => ({ version: eb("version", "+", 1) }))
          .where("id", "=", runId),
      );
      await refreshRunTotals(tx, [runId]);
    });
  } finally {
    measurer.close();
  }
  return { traces: traces.length };
}
