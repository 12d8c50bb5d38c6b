/**
 * Measures traces against their benchmark at ingest (and on recompute): finds the run's dataset, the
 * question's gold tables and database, classifies every step, extracts the final SQL's tables (EXPLAIN
 * against the question's database when registered, else the parser) and computes the per-trace metrics.
 * Opens the registered databases read-only and caches what it reads.
 */
import Database from "better-sqlite3";
import type { TraceTableSets } from "@/lib/db/schema";
import type { Column } from "@/lib/db/typed";
import {
  classifyStep,
  DEFAULT_ROLE_MAP,
  type RoleMap,
  type SchemaRowsOf,
  type StepClass,
} from "@/lib/sql/classify-step";
import { extractTables, type TablesResult } from "@/lib/sql/extract-tables";
import { extractSql } from "@/lib/sql/extract-sql";
import { isEmptyResult, markProbes, type ProbeMarks, type ProbeStep } from "@/lib/sql/probes";
import { sqlOfArgs } from "@/lib/trace/tool-names";
import { costOf, type PriceTable } from "@/lib/metrics/prices";
import { computeTraceMetrics, type TraceMetrics } from "@/lib/metrics/trace-metrics";
import { linkingCounts, type LinkingCounts } from "@/lib/metrics/stats";
import type { Trace } from "@/lib/trace/types";

/** What measuring needs of a trace: a stored one rebuilt from rows fits too. */
export type MeasurableTrace = Pick<Trace, "question" | "final_sql" | "directives" | "usage"> & {
  run: Pick<Trace["run"], "benchmark" | "model">;
  /** `result` as recorded (ingest), or `empty` as stored (recompute): whether a probe's result had no rows. */
  steps: {
    type: string;
    tool?: string;
    args?: unknown;
    result?: unknown;
    error?: string | null;
    empty?: boolean | null;
  }[];
};

export interface DatasetQuestionRef {
  dbId: string;
  text: string;
  evidence: string | null;
  goldSql: string | null;
  difficulty: string | null;
  goldTables: string[] | null;
  goldTablesMethod: string | null;
  /** Why the gold tables are unknown: the gold SQL does not compile on the question's database. */
  goldTablesError: string | null;
}

export interface Measurement {
  steps: (StepClass | null)[];
  metrics: TraceMetrics;
  tableSets: TraceTableSets;
  costComputedUsd: number | null;
  /** Table-level schema linking of the final SQL against the gold tables, when both are known. */
  linking: LinkingCounts | null;
  datasetId: string | null;
  /** The dataset's question, to fill what the trace lacks. */
  question: DatasetQuestionRef | null;
  /** Per step: whether its result was empty (null: not a probe or not recorded); empty probes and refinements. */
  empty: (boolean | null)[];
  probes: ProbeMarks;
}

export { openLookups, storeLookups, PreloadedLookups, type MeasureLookups, type StoreLookups } from "./measure-lookups";
import type { MeasureLookups } from "./measure-lookups";

const CACHE_LIMIT = 20_000;
const MEASURE_MAX_SQL_CHARS = 200_000;

export class TraceMeasurer {
  private datasetIds = new Map<string, string | null>();
  private questions = new Map<string, DatasetQuestionRef | null>();
  private databases = new Map<string, { tables: string[]; handle: Database.Database } | null>();
  private tablesCache = new Map<string, TablesResult>();

  constructor(
    private lookups: MeasureLookups,
    private prices?: PriceTable,
    /**
     * A dataset chosen at upload (or the run's link, when measured again) wins over the run's `benchmark` field;
     * null: the run is linked to no dataset, whatever its benchmark says (it was unlinked).
     */
    private forcedDatasetId?: string | null,
  ) {}

  datasetFor(benchmark: string | undefined): string | null {
    if (this.forcedDatasetId !== undefined) return this.forcedDatasetId;
    if (!benchmark) return null;
    if (!this.datasetIds.has(benchmark)) {
      this.datasetIds.set(benchmark, this.lookups.datasetId(benchmark));
    }
    return this.datasetIds.get(benchmark)!;
  }

  private question(datasetId: string, questionId: string): DatasetQuestionRef | null {
    const key = `${datasetId}\u0000${questionId}`;
    if (!this.questions.has(key)) {
      const row = this.lookups.question(datasetId, questionId);
      this.questions.set(key, row ? { ...row, goldTables: row.goldTables ? JSON.parse(row.goldTables) : null } : null);
    }
    return this.questions.get(key)!;
  }

  private database(datasetId: string, dbId: string) {
    const key = `${datasetId}:${dbId}`;
    if (!this.databases.has(key)) {
      const row = this.lookups.database(key);
      let value = null;
      if (row) {
        try {
          value = {
            tables: (JSON.parse(row.tables) as { name: string }[]).map((t) => t.name),
            handle: new Database(row.path, { readonly: true, fileMustExist: true }),
          };
        } catch {
          value = null; // the file moved: measure as if no database were registered
        }
      }
      this.databases.set(key, value);
    }
    return this.databases.get(key)!;
  }

  /** What a `sqlite_master` probe's filter selects in the question's database, as SQLite evaluates it (cached). */
  private schemaRowsOf(dbKey: string, handle: Database.Database): SchemaRowsOf {
    return (alias, where) => {
      const key = `${dbKey}\u0000${alias ?? ""}\u0000${where}`;
      if (this.schemaRows.has(key)) return this.schemaRows.get(key);
      let tables: string[] | undefined;
      try {
        const rows = handle
          .prepare(
            `SELECT DISTINCT ${alias ? `${alias}.` : ""}tbl_name AS t FROM sqlite_master ${alias ?? ""} WHERE ${where}`,
          )
          .raw()
          .all() as [unknown][];
        tables = rows.map((r) => String(r[0]));
      } catch {
        tables = undefined; // SQLite refused the filter out of its statement: read it from the tokens
      }
      if (this.schemaRows.size > 20_000) this.schemaRows.clear();
      this.schemaRows.set(key, tables);
      return tables;
    };
  }

  private readonly schemaRows = new Map<string, string[] | undefined>();

  private tablesOf(
    sql: string,
    dbKey: string,
    db: { tables: string[]; handle: Database.Database } | null,
    onRefusal: "fallback" | "fail" = "fallback",
  ): TablesResult {
    const key = `${onRefusal}\u0000${dbKey}\u0000${sql}`;
    let result = this.tablesCache.get(key);
    if (!result) {
      // Past the size bound, EXPLAIN (and its legacy-string retries) is skipped for the linear scan.
      result =
        sql.length > MEASURE_MAX_SQL_CHARS
          ? extractTables(sql, undefined, db?.tables, "scan")
          : extractTables(sql, db?.handle, db?.tables, "scan", onRefusal);
      if (this.tablesCache.size >= CACHE_LIMIT) this.tablesCache.clear();
      this.tablesCache.set(key, result);
    }
    return result;
  }

  measure(trace: MeasurableTrace, roles: RoleMap = DEFAULT_ROLE_MAP): Measurement {
    const datasetId = this.datasetFor(trace.run.benchmark);
    const question = datasetId ? this.question(datasetId, trace.question.id) : null;
    const dbId = trace.question.db_id ?? question?.dbId;
    const db = datasetId && dbId ? this.database(datasetId, dbId) : null;
    const dbKey = datasetId && dbId ? `${datasetId}:${dbId}` : "";

    const schemaRowsOf = db ? this.schemaRowsOf(dbKey, db.handle) : undefined;
    const steps = trace.steps.map((s) =>
      s.type === "tool_call" && s.tool ? classifyStep(s.tool, s.args, roles, db?.tables, schemaRowsOf) : null,
    );
    const probeSteps: ProbeStep[] = trace.steps.map((s, i) => {
      const cls = steps[i];
      if (!cls || cls.exploratory || (cls.role !== "data_inspection" && cls.role !== "execution"))
        return { cls, sql: undefined, empty: null };
      const raw = sqlOfArgs(s.args);
      if (raw === undefined) return { cls, sql: undefined, empty: null };
      // A call that failed returned no rows because it did not run: an error, not an empty-result probe.
      const failed = Boolean(s.error) || s.type === "error";
      return {
        cls,
        sql: extractSql(raw).sql,
        empty: s.empty !== undefined ? s.empty : failed ? null : isEmptyResult(s.result),
      };
    });
    const probes = markProbes(probeSteps);

    let gold: string[] | null = null;
    let goldMethod: string | null = null;
    let goldError: string | undefined;
    if (question?.goldTables) {
      gold = question.goldTables;
      goldMethod = question.goldTablesMethod;
    } else if (question?.goldTablesError && !trace.question.gold_sql) {
      goldMethod = question.goldTablesMethod;
      goldError = question.goldTablesError;
    } else {
      const goldSql = trace.question.gold_sql ?? question?.goldSql;
      if (goldSql) {
        const r = this.tablesOf(goldSql, dbKey, db, "fail");
        goldMethod = r.method;
        if (r.ok) gold = r.tables;
        else goldError = r.error;
      }
    }
    let final: string[] | null = null;
    let finalMethod: string | null = null;
    if (trace.final_sql) {
      const r = this.tablesOf(extractSql(trace.final_sql).sql, dbKey, db);
      finalMethod = r.method;
      if (r.ok) final = r.tables;
    }

    const metrics = computeTraceMetrics({
      steps,
      goldTables: gold,
      finalTables: final,
      databaseTables: db?.tables ?? null,
      irrelevantTables: trace.directives?.irrelevant_tables ?? null,
    });
    const u = trace.usage;
    return {
      steps,
      metrics,
      tableSets: {
        gold,
        goldMethod,
        ...(goldError ? { goldError } : {}),
        explored: metrics.exploredTables,
        nonGoldExplored: metrics.nonGoldExplored,
        goldNeverExplored: metrics.goldNeverExplored,
        final,
        finalMethod,
        extra: metrics.extraTables,
        violations: metrics.directiveViolations,
        database: db?.tables ?? null,
      },
      linking: final && gold ? linkingCounts(final, gold) : null,
      // Tokens a trace did not record are unknown, and so is their price: never $0 (issue 30).
      costComputedUsd:
        trace.run.model && (u.input_tokens !== undefined || u.output_tokens !== undefined)
          ? costOf(
              trace.run.model,
              { input: u.input_tokens ?? 0, cached: u.cached_input_tokens ?? 0, output: u.output_tokens ?? 0 },
              this.prices,
            )
          : null,
      datasetId,
      question,
      empty: probeSteps.map((p) => (p.sql === undefined ? null : p.empty)),
      probes,
    };
  }

  close(): void {
    for (const db of this.databases.values()) db?.handle.close();
    this.databases.clear();
  }
}

export function mergeRoles(runRoles: Record<string, string> | null | undefined): RoleMap {
  return runRoles ? { ...DEFAULT_ROLE_MAP, ...(runRoles as RoleMap) } : DEFAULT_ROLE_MAP;
}

/**
 * A trace's tool calls counted per tool, in the order of each tool's first call: [tool, role of its first call, calls].
 * What a worker hands the writer (a few entries a trace, where a pair per call cost 40 % of the batches' cloning).
 */
export type ToolCalls = [tool: string, role: string, calls: number][];

/** Counts classified steps' tool calls (null entries are steps that are not tool calls). */
export function countToolCalls(classes: readonly ({ tool: string; role: string } | null)[]): ToolCalls {
  const out: ToolCalls = [];
  const at = new Map<string, number>();
  for (const c of classes) {
    if (!c) continue;
    const i = at.get(c.tool);
    if (i === undefined) {
      at.set(c.tool, out.length);
      out.push([c.tool, c.role, 1]);
    } else out[i][2]++;
  }
  return out;
}

/** Tool calls of a run, by normalised tool name, accumulated over traces. */
export class ToolCounter {
  readonly counts = new Map<string, Map<string, { role: string; calls: number }>>();

  /** Adds a trace's tool calls (`countToolCalls`); a tool keeps the role of its first call in the run. */
  add(runId: string, calls: ToolCalls): void {
    let run = this.counts.get(runId);
    if (!run) this.counts.set(runId, (run = new Map()));
    for (const [tool, role, n] of calls) {
      const c = run.get(tool);
      if (c) c.calls += n;
      else run.set(tool, { role, calls: n });
    }
  }

  /** The counts as `run_tool_counts` rows (run, tool, role, calls), emptied: the writer adds them to the stored ones. */
  drain(): [string, string, string, number][] {
    const rows: [string, string, string, number][] = [];
    for (const [runId, tools] of this.counts) for (const [tool, c] of tools) rows.push([runId, tool, c.role, c.calls]);
    this.counts.clear();
    return rows;
  }
}

/** The per-trace columns a measurement fills, in the order `measuredValues` gives them (ingest and recompute alike). */
export const MEASURED_COLUMNS = [
  "exploratory_calls",
  "gold_count",
  "over_exploration",
  "extra_table_count",
  "directive_recall",
  "directive_flag_rate",
  "violation_count",
  "calls_schema_listing",
  "calls_schema_exploration",
  "calls_data_inspection",
  "calls_execution",
  "calls_submission",
  "calls_other",
  "cost_computed_usd",
  "table_sets",
  "link_tp",
  "link_pred",
  "link_gold",
  "empty_probe_count",
] as const satisfies Column<"traces">[];

export function measuredValues(measured: Measurement): unknown[] {
  const m = measured.metrics;
  return [
    m.exploratoryCalls,
    m.goldCount,
    m.overExploration,
    m.extraTables?.length ?? null,
    m.directiveRecall,
    m.directiveFlagRate,
    m.directiveViolations?.length ?? null,
    m.roleCounts.schema_listing,
    m.roleCounts.schema_exploration,
    m.roleCounts.data_inspection,
    m.roleCounts.execution,
    m.roleCounts.submission,
    m.roleCounts.other,
    measured.costComputedUsd,
    JSON.stringify(measured.tableSets),
    measured.linking?.truePositive ?? null,
    measured.linking?.predicted ?? null,
    measured.linking?.gold ?? null,
    measured.probes.emptyProbeCount,
  ];
}
