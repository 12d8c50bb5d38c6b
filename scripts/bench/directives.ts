/**
 * `npm run bench -- directives --dataset NAME [--json] [--variant computed|oracle] [--limit N]`: directive
 * quality over a dataset's questions in the store (DATABASE_PATH): mean recall of gold tables (share not flagged),
 * mean share of non-gold tables flagged, share of questions with every gold table kept, and time per question.
 */
import { parseArgs } from "node:util";
import { openDb } from "@/lib/db/client";
import { loadDatabase, type QuestionInfo } from "@/lib/environment/database-info";
import { directivesFor, type Variant } from "@/lib/environment/directives";
import { DEFAULT_PARAMS } from "@/lib/environment/directives/computed";

export async function benchDirectives(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { dataset: { type: "string" }, json: { type: "boolean", default: false }, variant: { type: "string", default: "computed" }, limit: { type: "string" }, misses: { type: "boolean", default: false }, params: { type: "string" } } });
  const params = { ...DEFAULT_PARAMS, ...(values.params ? JSON.parse(values.params) : {}) };
  if (!values.dataset) throw new Error("--dataset NAME is required (import it first: metron dataset import)");
  const db = openDb();
  const ds = db.$client.prepare("SELECT id FROM datasets WHERE id = ? OR name = ?").get(values.dataset, values.dataset) as { id: string } | undefined;
  if (!ds) throw new Error(`no dataset ${values.dataset} in ${db.$client.name}`);
  const rows = db.$client.prepare("SELECT question_id AS id, db_id AS dbId, text, evidence, gold_sql AS goldSql, gold_tables AS goldTables FROM questions WHERE dataset_id = ? AND gold_tables IS NOT NULL ORDER BY position").all(ds.id) as (Omit<QuestionInfo, "goldTables"> & { goldTables: string })[];
  const questions = rows.slice(0, values.limit ? Number(values.limit) : undefined).map((r) => ({ ...r, goldTables: JSON.parse(r.goldTables) as string[] }));
  let recall = 0, flagged = 0, flaggedN = 0, allKept = 0;
  const misses: string[] = [];
  const start = performance.now();
  for (const q of questions) {
    const database = loadDatabase(db.$client, ds.id, q.dbId);
    const r = await directivesFor(values.variant as Variant, q, database, { params });
    const irrelevant = new Set((r?.irrelevant ?? []).map((t) => t.toLowerCase()));
    const gold = q.goldTables.map((t) => t.toLowerCase());
    const nonGold = database.tables.map((t) => t.name.toLowerCase()).filter((t) => !gold.includes(t));
    const keptGold = gold.filter((t) => !irrelevant.has(t)).length;
    recall += keptGold / gold.length;
    if (keptGold === gold.length) allKept++;
    else if (values.misses) misses.push(`${q.id} [${q.dbId}] lost ${gold.filter((t) => irrelevant.has(t))} — ${q.text} | ${q.evidence ?? ""} | phrases ${JSON.stringify((r?.explanation as { phrases?: string[] })?.phrases)}`);
    if (nonGold.length) { flagged += nonGold.filter((t) => irrelevant.has(t)).length / nonGold.length; flaggedN++; }
  }
  const ms = (performance.now() - start) / questions.length;
  const out = { questions: questions.length, recall: recall / questions.length, flagged: flaggedN ? flagged / flaggedN : 0, all_gold_kept: allKept / questions.length, ms_per_question: ms };
  if (values.json) console.log(JSON.stringify(out, null, 2));
  else {
    console.log(`dataset ${ds.id}, variant ${values.variant}, ${out.questions} questions`);
    console.log(`recall of gold tables ${(100 * out.recall).toFixed(1)}% · non-gold flagged ${(100 * out.flagged).toFixed(1)}% · every gold table kept ${(100 * out.all_gold_kept).toFixed(1)}% · ${ms.toFixed(2)} ms/question`);
    console.log(`parameters: ${JSON.stringify(params)} (no model: keyword phrases, BM25 only)`);
    misses.slice(0, 40).forEach((m) => console.log("  miss", m));
  }
  db.$client.close();
  return 0;
}
