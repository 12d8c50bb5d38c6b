/** Benchmark question files → questions. Pure: each takes the file's text. */
import { z } from "zod";

export interface DatasetQuestion {
  id: string;
  dbId: string;
  text: string;
  evidence?: string;
  goldSql?: string;
  difficulty?: string;
  /** Spider 2.0: gold answers as CSV texts, and the evaluation standard (`condition_cols`, `ignore_order`). */
  goldAnswers?: string[];
  evalStandard?: { condition_cols?: unknown; ignore_order?: boolean };
}

export const datasetFormats = ["bird", "spider", "spider2-lite"] as const;
export type DatasetFormat = (typeof datasetFormats)[number];

function parseJsonArray(text: string, what: string): unknown[] {
  const data = JSON.parse(text.replace(/^\uFEFF/, ""));
  if (!Array.isArray(data)) throw new Error(`${what}: expected a JSON array of questions`);
  return data;
}

function validate<T>(schema: z.ZodType<T>, item: unknown, where: string): T {
  const r = schema.safeParse(item);
  if (!r.success)
    throw new Error(
      `${where}: ${r.error.issues.map((i) => `${i.path.join(".") || "(item)"}: ${i.message}`).join("; ")}`,
    );
  return r.data;
}

const birdItem = z.object({
  question_id: z.union([z.number(), z.string()]),
  db_id: z.string(),
  question: z.string(),
  evidence: z.string().optional(),
  SQL: z.string(),
  difficulty: z.string().optional(),
});

/** BIRD: `question_id, db_id, question, evidence, SQL, difficulty`. */
export function parseBirdQuestions(text: string): DatasetQuestion[] {
  return parseJsonArray(text, "BIRD questions").map((item, i) => {
    const q = validate(birdItem, item, `question ${i} (0-based)`);
    return {
      id: String(q.question_id),
      dbId: q.db_id,
      text: q.question,
      evidence: q.evidence || undefined,
      goldSql: q.SQL,
      difficulty: q.difficulty,
    };
  });
}

const spiderItem = z.object({ db_id: z.string(), question: z.string(), query: z.string() });

/** Spider: `db_id, question, query`; a question's id is its 0-based position in the file. */
export function parseSpiderQuestions(text: string): DatasetQuestion[] {
  return parseJsonArray(text, "Spider questions").map((item, i) => {
    const q = validate(spiderItem, item, `question ${i} (0-based)`);
    return { id: String(i), dbId: q.db_id, text: q.question, goldSql: q.query };
  });
}

/** Gold files of `SQL<TAB>db_id` lines; ids are 0-based line positions (blank lines skipped but counted). */
export function parseGoldFile(text: string): DatasetQuestion[] {
  const out: DatasetQuestion[] = [];
  text
    .replace(/^\uFEFF/, "")
    .split(/\r?\n/)
    .forEach((line, i) => {
      if (!line.trim()) return;
      const tab = line.lastIndexOf("\t");
      if (tab < 0) throw new Error(`line ${i + 1}: expected "SQL<TAB>db_id"`);
      out.push({
        id: String(out.length),
        dbId: line.slice(tab + 1).trim(),
        text: "",
        goldSql: line.slice(0, tab).trim(),
      });
    });
  return out;
}

const spider2Item = z.object({
  instance_id: z.string(),
  db: z.string(),
  question: z.string(),
  external_knowledge: z.string().nullish(),
});

const spider2Standard = z.object({
  instance_id: z.string(),
  condition_cols: z.unknown().optional(),
  ignore_order: z.boolean().optional(),
});

/** Spider 2.0's `spider2lite_eval.jsonl`: each instance's `condition_cols` and `ignore_order`, by instance id. */
export function parseSpider2Standards(
  text: string,
  file = "eval standard",
): Map<string, DatasetQuestion["evalStandard"]> {
  const out = new Map<string, DatasetQuestion["evalStandard"]>();
  text
    .replace(/^\uFEFF/, "")
    .split(/\r?\n/)
    .forEach((line, i) => {
      if (!line.trim()) return;
      let item: unknown;
      try {
        item = JSON.parse(line);
      } catch (e) {
        throw new Error(`${file} line ${i + 1}: ${(e as Error).message}`);
      }
      const s = validate(spider2Standard, item, `${file} line ${i + 1}`);
      out.set(s.instance_id, { condition_cols: s.condition_cols, ignore_order: s.ignore_order });
    });
  return out;
}

export interface Spider2Gold {
  sql?: string;
  answers?: string[];
  standard?: DatasetQuestion["evalStandard"];
}

/**
 * Spider2-lite JSONL: `instance_id, db, question, external_knowledge`; gold SQL from `<instance_id>.sql` files,
 * gold answers from `<instance_id>.csv` or `<instance_id>_a.csv`, `_b.csv`, … and the evaluation standard.
 */
export function parseSpider2LiteQuestions(
  text: string,
  goldOf: (instanceId: string) => Spider2Gold | string | undefined,
): DatasetQuestion[] {
  const out: DatasetQuestion[] = [];
  text
    .replace(/^\uFEFF/, "")
    .split(/\r?\n/)
    .forEach((line, i) => {
      if (!line.trim()) return;
      const q = validate(spider2Item, JSON.parse(line), `line ${i + 1}`);
      const given = goldOf(q.instance_id);
      const gold: Spider2Gold = typeof given === "string" ? { sql: given } : (given ?? {});
      out.push({
        id: q.instance_id,
        dbId: q.db,
        text: q.question,
        evidence: q.external_knowledge ?? undefined,
        goldSql: gold.sql,
        ...(gold.answers?.length ? { goldAnswers: gold.answers } : {}),
        ...(gold.standard ? { evalStandard: gold.standard } : {}),
      });
    });
  return out;
}
