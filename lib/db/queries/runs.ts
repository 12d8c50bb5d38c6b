import { sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import type { RunSortKey } from "@/lib/url/runs";

export interface RunListRow {
  id: string;
  name: string;
  system: string;
  model: string;
  traces: number;
  questions: number;
  /** Traces with a recorded outcome (correct true/false). */
  judged: number;
  correct: number;
  tokens: number;
  createdAt: string;
}

const ORDER: Record<RunSortKey, string> = {
  name: "r.name",
  system: "r.system",
  model: "r.model",
  traces: "traces",
  questions: "questions",
  correct: "CASE WHEN judged = 0 THEN NULL ELSE 1.0 * correct / judged END",
  tokens: "tokens",
  created: "r.created_at",
};

export function listRuns(db: Db, opts: { sort: RunSortKey; dir: "asc" | "desc"; system?: string | null; model?: string | null }): RunListRow[] {
  const where: string[] = [];
  const params: string[] = [];
  if (opts.system) { where.push("r.system = ?"); params.push(opts.system); }
  if (opts.model) { where.push("r.model = ?"); params.push(opts.model); }
  const dir = opts.dir === "asc" ? "ASC" : "DESC";
  return db.$client.prepare(`
    SELECT r.id, r.name, r.system, r.model, r.created_at AS createdAt,
      count(t.id) AS traces, count(DISTINCT t.question_id) AS questions,
      count(t.recorded_correct) AS judged, coalesce(sum(t.recorded_correct), 0) AS correct,
      coalesce(sum(t.input_tokens + t.output_tokens), 0) AS tokens
    FROM runs r LEFT JOIN traces t ON t.run_id = r.id
    ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
    GROUP BY r.id
    ORDER BY ${ORDER[opts.sort]} ${dir} NULLS LAST, r.id`).all(...params) as RunListRow[];
}

export function listRunFacets(db: Db): { systems: string[]; models: string[] } {
  const systems = db.all<{ v: string }>(sql`SELECT DISTINCT system AS v FROM runs ORDER BY v`).map((r) => r.v);
  const models = db.all<{ v: string }>(sql`SELECT DISTINCT model AS v FROM runs ORDER BY v`).map((r) => r.v);
  return { systems, models };
}

export function getRun(db: Db, id: string) {
  return db.query.runs.findFirst({ where: (r, { eq }) => eq(r.id, id) });
}
