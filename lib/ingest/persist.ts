/**
 * Writes one upload in one synchronous SQLite transaction with prepared statements. The
 * transaction is opened by `begin` and closed by `commit` or `rollback`: an upload that fails,
 * or a process that dies, leaves nothing of that upload behind.
 */
import type Database from "better-sqlite3";
import { runIdOf, serializeTrace } from "@/lib/trace/hash";
import type { Trace } from "@/lib/trace/types";
import type { RoleMap } from "@/lib/sql/classify-step";
import { mergeRoles, ToolCounter, type TraceMeasurer } from "./measure";

/** Results at or above this many characters (as JSON) are stored once in `blobs`, keyed by hash. */
export const BLOB_THRESHOLD = 2048;

export interface RunRef {
  id: string;
  name: string;
  system: string;
  model: string;
}

export interface UploadInfo {
  id: string;
  source: "cli" | "browser" | "agent";
  fileName?: string;
}

function json(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

export class Persister {
  private statements;
  private runs = new Map<string, RunRef>();
  private open = false;
  inserted = 0;
  duplicates = 0;

  private roles = new Map<string, RoleMap>();
  private tools = new ToolCounter();

  constructor(
    private sqlite: Database.Database,
    private upload: UploadInfo,
    private measurer: TraceMeasurer,
    /** A tool → role mapping given at upload; saved on the runs it touches. */
    private toolRoles?: Record<string, string>,
  ) {
    const s = sqlite;
    this.statements = {
      run: s.prepare(`INSERT OR IGNORE INTO runs (id, name, system, model, benchmark, config, dataset_id, tool_roles) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
      runRoles: s.prepare(`SELECT tool_roles AS roles FROM runs WHERE id = ?`),
      setRunRoles: s.prepare(`UPDATE runs SET tool_roles = ? WHERE id = ?`),
      trace: s.prepare(`INSERT OR IGNORE INTO traces (id, run_id, question_id, sample, db_id, question_text, evidence, gold_sql,
        difficulty, directives, final_sql, recorded_correct, status, outcome_error, step_count, tool_call_count, error_step_count,
        input_tokens, output_tokens, reasoning_tokens, cached_input_tokens, cost_usd, started_at, duration_ms, meta, upload_id,
        exploratory_calls, gold_count, over_exploration, extra_table_count, directive_recall, directive_flag_rate, violation_count,
        calls_schema_listing, calls_schema_exploration, calls_data_inspection, calls_execution, calls_submission, calls_other, cost_computed_usd, table_sets,
        link_tp, link_pred, link_gold)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      step: s.prepare(`INSERT INTO steps (trace_id, seq, type, tool, args, result, result_blob, result_size, error, role, content,
        started_at, duration_ms, input_tokens, output_tokens, reasoning_tokens, cached_input_tokens, model, meta, tool_role, tables, exploratory)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      blob: s.prepare(`INSERT OR IGNORE INTO blobs (hash, content) VALUES (?, ?)`),
      error: s.prepare(`INSERT INTO upload_errors (upload_id, line, message) VALUES (?, ?, ?)`),
      upload: s.prepare(`INSERT INTO uploads (id, source, file_name) VALUES (?, ?, ?)`),
      finish: s.prepare(`UPDATE uploads SET bytes = ?, lines = ?, inserted = ?, duplicates = ?, error_count = ?, run_ids = ? WHERE id = ?`),
    };
  }

  begin(): void {
    this.sqlite.exec("BEGIN IMMEDIATE");
    this.open = true;
    this.statements.upload.run(this.upload.id, this.upload.source, this.upload.fileName ?? null);
  }

  /** Stores a trace unless the same content is already stored; returns its id and whether it was new. */
  add(trace: Trace): { id: string; inserted: boolean; runId: string } {
    const runId = runIdOf(trace.run);
    if (!this.runs.has(runId)) {
      const datasetId = this.measurer.datasetFor(trace.run.benchmark);
      this.statements.run.run(runId, trace.run.name, trace.run.system, trace.run.model, trace.run.benchmark ?? null, json(trace.run.config), datasetId, json(this.toolRoles));
      if (this.toolRoles) this.statements.setRunRoles.run(JSON.stringify(this.toolRoles), runId);
      const stored = (this.statements.runRoles.get(runId) as { roles: string | null }).roles;
      this.roles.set(runId, mergeRoles(stored ? JSON.parse(stored) : null));
      this.runs.set(runId, { id: runId, name: trace.run.name, system: trace.run.system, model: trace.run.model });
    }
    const { id, steps: serialized } = serializeTrace(trace, BLOB_THRESHOLD);
    const measured = this.measurer.measure(trace, this.roles.get(runId));
    const m = measured.metrics;
    const dq = measured.question;
    const q = { ...trace.question, db_id: trace.question.db_id ?? dq?.dbId, text: trace.question.text ?? dq?.text, evidence: trace.question.evidence ?? dq?.evidence ?? undefined,
      gold_sql: trace.question.gold_sql ?? dq?.goldSql ?? undefined, difficulty: trace.question.difficulty ?? dq?.difficulty ?? undefined };
    let toolCalls = 0;
    let errorSteps = 0;
    for (const step of trace.steps) {
      if (step.type === "tool_call") toolCalls++;
      if (step.type === "error" || step.error) errorSteps++;
    }
    const u = trace.usage;
    const info = this.statements.trace.run(
      id, runId, q.id, trace.sample, q.db_id ?? null, q.text ?? null, q.evidence ?? null, q.gold_sql ?? null,
      q.difficulty ?? null, json(trace.directives), trace.final_sql, trace.outcome.correct === null ? null : trace.outcome.correct ? 1 : 0,
      trace.outcome.status, trace.outcome.error ?? null, trace.steps.length, toolCalls, errorSteps,
      u.input_tokens ?? 0, u.output_tokens ?? 0, u.reasoning_tokens ?? 0, u.cached_input_tokens ?? 0, u.cost_usd ?? null,
      trace.started_at ?? null, trace.duration_ms ?? null, Object.keys(trace.meta).length ? JSON.stringify(trace.meta) : null, this.upload.id,
      m.exploratoryCalls, m.goldCount, m.overExploration, m.extraTables?.length ?? null, m.directiveRecall, m.directiveFlagRate, m.directiveViolations?.length ?? null,
      m.roleCounts.schema_listing, m.roleCounts.schema_exploration, m.roleCounts.data_inspection, m.roleCounts.execution, m.roleCounts.submission, m.roleCounts.other,
      measured.costComputedUsd, JSON.stringify(measured.tableSets),
      measured.linking?.truePositive ?? null, measured.linking?.predicted ?? null, measured.linking?.gold ?? null,
    );
    if (info.changes === 0) {
      this.duplicates++;
      return { id, inserted: false, runId };
    }
    for (let i = 0; i < trace.steps.length; i++) {
      const step = trace.steps[i];
      const { args, meta, resultHash: blob } = serialized[i];
      let result = serialized[i].result;
      const size = result === null ? 0 : result.length;
      if (blob !== null) {
        this.statements.blob.run(blob, result);
        result = null;
      }
      const su = step.usage;
      const cls = measured.steps[i];
      this.statements.step.run(
        id, step.seq, step.type, step.tool ?? null, args, result, blob, size, step.error ?? null, step.role ?? null,
        step.content ?? null, step.started_at ?? null, step.duration_ms ?? null, su?.input_tokens ?? null, su?.output_tokens ?? null,
        su?.reasoning_tokens ?? null, su?.cached_input_tokens ?? null, step.model ?? null, meta,
        cls?.role ?? null, cls && cls.tables.length ? JSON.stringify(cls.tables) : null, cls?.exploratory ? 1 : 0,
      );
    }
    this.tools.add(runId, measured.steps);
    this.inserted++;
    return { id, inserted: true, runId };
  }

  addError(line: number, message: string): void {
    this.statements.error.run(this.upload.id, line, message);
  }

  commit(totals: { bytes: number; lines: number; errors: number }): RunRef[] {
    const runs = [...this.runs.values()];
    this.tools.flush(this.sqlite);
    const bump = this.sqlite.prepare("UPDATE runs SET version = version + 1 WHERE id = ?");
    for (const r of runs) bump.run(r.id);
    this.statements.finish.run(totals.bytes, totals.lines, this.inserted, this.duplicates, totals.errors, JSON.stringify(runs.map((r) => r.id)), this.upload.id);
    this.sqlite.exec("COMMIT");
    this.open = false;
    return runs;
  }

  rollback(): void {
    if (this.open) this.sqlite.exec("ROLLBACK");
    this.open = false;
  }
}
