/** Benchmark question files → questions. Pure: each takes the file's text. */
import { z } from "zod";

export interface DatasetQuestion {
  id: string;
  dbId: string;
  text: string;
  evidence?: string;
  goldSql?: string;
  difficulty?: string;
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

/** Spider2-lite JSONL: `instance_id, db, question, external_knowledge`; gold SQL from `<instance_id>.sql` files. */
export function parseSpider2LiteQuestions(
  text: string,
  goldSqlOf: (instanceId: string) => string | undefined,
): DatasetQuestion[] {
  const out: DatasetQuestion[] = [];
  text
    .replace(/^\uFEFF/, "")
    .split(/\r?\n/)
    .forEach((line, i) => {
      if (!line.trim()) return;
      const q = validate(spider2Item, JSON.parse(line), `line ${i + 1}`);
      out.push({
        id: q.instance_id,
        dbId: q.db,
        text: q.question,
        evidence: q.external_knowledge ?? undefined,
        goldSql: goldSqlOf(q.instance_id),
      });
    });
  return out;
}
