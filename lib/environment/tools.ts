/**
 * The data environment the Sophrosyne study uses: five fine-grained tools over one question's database —
 * list_tables (with directives when the variant gives any), describe_table, get_join_info, read_query
 * (through the read-only sandbox) and submit_final_query (once). Errors come back to the agent as tool results,
 * never thrown out. Every call is recorded as a canonical step; `trace()` is the session as a canonical trace.
 */

import { positiveNumber } from "@/lib/config/env";
import { z } from "zod";
import { SqlSandbox, type SqlValue } from "@/lib/sandbox/sandbox";
import type { DatabaseInfo, QuestionInfo } from "./database-info";
import type { DirectiveResult, Variant } from "./directives/types";
import { SYSTEM_OF } from "./directives/types";

export const toolInputs = {
  list_tables: z.object({}),
  describe_table: z.object({
    table_name: z.string().min(1).describe("the table to describe"),
    sample_rows: z
      .number()
      .int()
      .min(0)
      .max(10)
      .optional()
      .describe("rows to show as examples (default 3, 0 for none)"),
  }),
  get_join_info: z.object({}),
  read_query: z.object({
    query: z.string().min(1).describe("one read-only SQL statement (SELECT, or PRAGMA table_info)"),
    max_rows: z.number().int().min(1).max(1000).optional().describe("row limit of the shown result (default 50)"),
  }),
  submit_final_query: z.object({ query: z.string().min(1).describe("the final SQL answer; accepted once") }),
} as const;

export type ToolName = keyof typeof toolInputs;

export const toolDescriptions: Record<ToolName, string> = {
  list_tables: "List the names of all tables in the database. Call this first.",
  describe_table:
    "Describe one table: its columns with types, primary key, foreign keys, column descriptions, and a few sample rows.",
  get_join_info: "List every foreign-key relationship between tables (how to join them).",
  read_query: "Run one read-only SQL query and see up to max_rows rows of its result. Keep results small.",
  submit_final_query: "Submit the final SQL query that answers the question. Call it exactly once, at the end.",
};

export interface StepRecord {
  type: "tool_call";
  tool: ToolName;
  args: unknown;
  result: string;
  error?: string;
  started_at: string;
  duration_ms: number;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

function formatTable(columns: string[], rows: SqlValue[][], shown: number, total: number | "many"): string {
  const cell = (v: SqlValue) =>
    v === null ? "NULL" : v instanceof Uint8Array ? `<blob ${v.length} bytes>` : String(v);
  const lines = [columns.join(" | "), ...rows.slice(0, shown).map((r) => r.map(cell).join(" | "))];
  const more =
    total === "many"
      ? `\n(${shown} rows shown; more rows were cut: raise max_rows or narrow the query)`
      : total > shown
        ? `\n(${shown} of ${total} rows shown)`
        : `\n(${total} rows)`;
  return lines.join("\n") + more;
}

export interface EnvironmentOptions {
  variant: Variant;
  directives: DirectiveResult | null;
  sandbox?: SqlSandbox;
  /** The run the session's trace belongs to. */
  run?: { name?: string; model?: string };
}

export class SqlEnvironment {
  readonly steps: StepRecord[] = [];
  private submitted: string | null = null;
  private sandbox: SqlSandbox;
  private ownsSandbox: boolean;
  private readonly startedAt = new Date();
  private directivesAt: number | undefined;

  constructor(
    readonly question: QuestionInfo,
    readonly database: DatabaseInfo,
    private options: EnvironmentOptions,
  ) {
    this.ownsSandbox = !options.sandbox;
    this.sandbox = options.sandbox ?? new SqlSandbox({ maxRows: 1001 });
  }

  get finalSql(): string | null {
    return this.submitted;
  }

  private table(name: string) {
    return this.database.tables.find(
      (t) =>
        t.name.toLowerCase() ===
        name
          .trim()
          .replace(/^["'`[]|["'`\]]$/g, "")
          .toLowerCase(),
    );
  }

  /** Runs one tool; never throws — an error is the tool's result, with the error recorded on the step. */
  async call(tool: ToolName, input: unknown): Promise<string> {
    const started = new Date();
    let result: string;
    let error: string | undefined;
    const parsed = toolInputs[tool]?.safeParse(input ?? {});
    if (!parsed) {
      error = `unknown tool ${tool}`;
      result = `Error: ${error}`;
    } else if (!parsed.success) {
      error = parsed.error.issues.map((i) => `${i.path.join(".") || "(input)"}: ${i.message}`).join("; ");
      result = `Error: invalid arguments: ${error}`;
    } else {
      try {
        result = await this.run(tool, parsed.data as Record<string, unknown>);
        if (result.startsWith("Error:")) error = result.slice(7);
      } catch (e) {
        error = (e as Error).message;
        result = `Error: ${error}`;
      }
    }
    // A result the agent (and an MCP client: the SDK drops a session over ~10 MB) can take, with a note it can read.
    const max = positiveNumber("METRON_TOOL_RESULT_MAX_CHARS", 100_000);
    if (result.length > max)
      result = `${result.slice(0, max)}\n(result cut at ${max} of ${result.length} characters (METRON_TOOL_RESULT_MAX_CHARS): select fewer columns or rows, or shorter values)`;
    this.steps.push({
      type: "tool_call",
      tool,
      args: input ?? {},
      result,
      ...(error ? { error } : {}),
      started_at: started.toISOString(),
      duration_ms: Date.now() - started.getTime(),
    });
    return result;
  }

  private async run(tool: ToolName, input: Record<string, unknown>): Promise<string> {
    switch (tool) {
      case "list_tables": {
        const names = this.database.tables.map((t) => t.name);
        let out = names.join("\n");
        const d = this.options.directives;
        if (d && d.irrelevant.length && this.directivesAt === undefined) this.directivesAt = this.steps.length;
        if (d && d.irrelevant.length)
          out += `\n\n## Directives\nThese tables are probably irrelevant to this question; do not explore them unless you must:\n${d.irrelevant.join("\n")}`;
        return out;
      }
      case "describe_table": {
        const { table_name, sample_rows } = input as { table_name: string; sample_rows?: number };
        const t = this.table(table_name);
        if (!t)
          return `Error: no table named "${table_name}". Tables: ${this.database.tables.map((x) => x.name).join(", ")}`;
        const fks = this.database.foreignKeys.filter((f) => f.table.toLowerCase() === t.name.toLowerCase());
        const lines = [
          `Table ${t.name}${this.database.schemaOnly ? " (schema only: no rows)" : ` (${t.rows} rows)`}`,
          "Columns:",
        ];
        for (const c of t.columns) {
          const fk = fks.find((f) => f.column.toLowerCase() === c.name.toLowerCase());
          lines.push(
            `- ${c.name} ${c.type || "ANY"}${c.pk ? " PRIMARY KEY" : ""}${fk ? ` REFERENCES ${fk.refTable}(${fk.refColumn})` : ""}${c.description ? ` — ${c.description}` : ""}${c.valueDescription ? ` [values: ${c.valueDescription.replace(/\s+/g, " ").slice(0, 300)}]` : ""}`,
          );
        }
        const n = sample_rows ?? 3;
        if (n > 0 && !this.database.schemaOnly) {
          const r = await this.sandbox.run(this.database.path, `SELECT * FROM ${quote(t.name)} LIMIT ${n}`, n);
          if (r.ok) lines.push("Sample rows:", formatTable(r.columns, r.rows, n, r.rows.length));
        }
        return lines.join("\n");
      }
      case "get_join_info": {
        if (this.database.foreignKeys.length === 0) return "No foreign keys are declared in this database.";
        return this.database.foreignKeys.map((f) => `${f.table}.${f.column} = ${f.refTable}.${f.refColumn}`).join("\n");
      }
      case "read_query": {
        const { query, max_rows } = input as { query: string; max_rows?: number };
        const limit = max_rows ?? 50;
        const r = await this.sandbox.run(this.database.path, query, limit + 1);
        if (!r.ok) return `Error: ${r.error}`;
        if (r.columns.length === 0) return "(the statement returned no columns)";
        return formatTable(r.columns, r.rows, limit, r.truncated || r.rows.length > limit ? "many" : r.rows.length);
      }
      case "submit_final_query": {
        const { query } = input as { query: string };
        if (this.submitted !== null)
          return "Error: a final query was already submitted; only the first submission counts.";
        const check = await this.sandbox.check(this.database.path, query);
        this.submitted = query;
        return check.ok
          ? "Final query accepted."
          : `Final query accepted (note: it does not compile here: ${check.error}).`;
      }
    }
  }

  /** The session as a canonical trace (lib/trace), ready for the ingest path. */
  trace(extra: { status?: string; error?: string; usage?: object; steps?: object[] } = {}): Record<string, unknown> {
    const d = this.options.directives;
    return {
      run: {
        name: this.options.run?.name ?? `environment ${this.database.datasetId}`,
        system: SYSTEM_OF[this.options.variant],
        model: this.options.run?.model ?? "external agent",
        benchmark: this.database.datasetId,
      },
      question: {
        id: this.question.id,
        db_id: this.question.dbId,
        text: this.question.text,
        ...(this.question.evidence ? { evidence: this.question.evidence } : {}),
        ...(this.question.goldSql ? { gold_sql: this.question.goldSql } : {}),
      },
      ...(this.options.variant !== "none" && d
        ? {
            directives: {
              strategy: this.options.variant,
              irrelevant_tables: d.irrelevant,
              ...(this.directivesAt !== undefined ? { at_step: this.directivesAt } : {}),
              explanation: d.explanation,
            },
          }
        : {}),
      steps: extra.steps ?? this.steps,
      final_sql: this.submitted,
      outcome: {
        correct: null,
        status: extra.status ?? (this.submitted !== null ? "submitted" : "no_submission"),
        ...(extra.error ? { error: extra.error } : {}),
      },
      ...(extra.usage ? { usage: extra.usage } : {}),
      started_at: this.startedAt.toISOString(),
      duration_ms: Date.now() - this.startedAt.getTime(),
      meta: { environment: { variant: this.options.variant, database_sha256: this.database.sha256 } },
    };
  }

  async close(): Promise<void> {
    if (this.ownsSandbox) await this.sandbox.close();
  }
}
