/**
 * `npm run bench -- directives --dataset NAME[,NAME…] [--json] [--variant computed|oracle] [--limit N] [--params JSON] [--misses] [--half design|held-out] [--per-database] [--cv]`:
 * directive quality over datasets' questions in the store (DATABASE_PATH): mean recall of gold tables (share not
 * flagged), mean share of non-gold tables flagged, share of questions with every gold table kept, time per question.
 * `--cv`: leave-one-database-out cross-validation over a grid of the computed strategy's parameters
 * (lib/environment/directives/cross-validate.ts): held-out figures per dataset, pooled and per database with the
 * worst database, the configuration chosen on everything (what DEFAULT_PARAMS should be) with its tuned-on figures,
 * and the frozen split (chosen on the design half of the databases, scored on the other half), labelled so.
 */
import { parseArgs } from "node:util";
import { openDb } from "@/lib/db/client";
import { asSql } from "@/lib/db/sql";
import { loadDatabaseFrom, type DatabaseInfo, type QuestionInfo } from "@/lib/environment/database-info";
import { directiveDeps } from "@/lib/agent/directive-models";
import { directivesFor, type Variant } from "@/lib/environment/directives";
import type { ComputedDeps } from "@/lib/environment/directives/computed";
import { DEFAULT_PARAMS, DirectiveMemo, type ComputedParams } from "@/lib/environment/directives/computed";
import { SHIPPED_EMBEDDER } from "@/lib/environment/directives/word-vectors";
import {
  crossValidate,
  figuresOf,
  figuresPerDatabase,
  frozenSplit,
  isDesignDatabase,
  pooledHeldOut,
  worstFolds,
  type Figures,
  type QuestionScore,
} from "@/lib/environment/directives/cross-validate";

type Question = QuestionInfo & { goldTables: string[]; dataset: string };

function grid(): ComputedParams[] {
  const out: ComputedParams[] = [];
  for (const maxPhrases of [8, 12])
    for (const tablesPerPhrase of [1, 2])
      for (const [bridging, maxBridgeTables] of [
        ["any", DEFAULT_PARAMS.maxBridgeTables],
        ["need", 1],
        ["need", 2],
        ["none", DEFAULT_PARAMS.maxBridgeTables],
      ] as const)
        for (const [semantic, semanticMode, minSimilarity] of [
          [false, DEFAULT_PARAMS.semanticMode, DEFAULT_PARAMS.minSimilarity],
          [true, "fuse", 0.6],
          [true, "fuse", 0.75],
          [true, "fallback", 0.6],
          [true, "fallback", 0.75],
        ] as const)
          for (const matchValues of [true, false])
            for (const followReferences of [true, false])
              for (const germanStems of [true, false])
                for (const keepAllWithoutEvidence of [true, false])
                  out.push({
                    ...DEFAULT_PARAMS,
                    maxPhrases,
                    tablesPerPhrase,
                    bridging,
                    maxBridgeTables,
                    semantic,
                    semanticMode,
                    minSimilarity,
                    matchValues,
                    followReferences,
                    germanStems,
                    keepAllWithoutEvidence,
                  });
  return out;
}

export async function benchDirectives(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      dataset: { type: "string" },
      json: { type: "boolean", default: false },
      variant: { type: "string", default: "computed" },
      limit: { type: "string" },
      misses: { type: "boolean", default: false },
      params: { type: "string" },
      cv: { type: "boolean", default: false },
      half: { type: "string", default: "all" },
      "per-database": { type: "boolean", default: false },
    },
  });
  const half = values.half;
  if (half !== "all" && half !== "design" && half !== "held-out")
    throw new Error(`--half must be design, held-out or all (got ${JSON.stringify(half)})`);
  if (values.cv && half !== "all")
    throw new Error("--half does not go with --cv: cross-validation scores every database and splits them itself");
  // As in reruns and sweeps: a configured embedding model turns the semantic half on unless --params says otherwise.
  const params = {
    ...DEFAULT_PARAMS,
    ...(process.env.METRON_EMBEDDING_MODEL ? { semantic: true } : {}),
    ...(values.params ? JSON.parse(values.params) : {}),
  };
  if (!values.dataset) throw new Error("--dataset NAME is required (import it first: metron dataset import)");
  const db = openDb();
  const questions: Question[] = [];
  for (const name of values.dataset.split(",")) {
    const ds = db.$client.prepare("SELECT id FROM datasets WHERE id = ? OR name = ?").get(name, name) as
      { id: string } | undefined;
    if (!ds) throw new Error(`no dataset ${name} in ${db.$client.name}`);
    const rows = db.$client
      .prepare(
        "SELECT question_id AS id, db_id AS dbId, text, evidence, gold_sql AS goldSql, gold_tables AS goldTables FROM questions WHERE dataset_id = ? AND gold_tables IS NOT NULL ORDER BY position",
      )
      .all(ds.id) as (Omit<QuestionInfo, "goldTables"> & { goldTables: string })[];
    questions.push(
      ...rows
        .slice(0, values.limit ? Number(values.limit) : undefined)
        .map((r) => ({ ...r, goldTables: JSON.parse(r.goldTables) as string[], dataset: ds.id }))
        // One half of the frozen split (cross-validate.ts `isDesignDatabase`), or both.
        .filter((q) => half === "all" || isDesignDatabase(q.dataset, q.dbId) === (half === "design")),
    );
  }
  const databases = new Map<string, DatabaseInfo>();
  const databaseOf = async (q: Question) =>
    databases.get(`${q.dataset}:${q.dbId}`) ??
    databases
      .set(`${q.dataset}:${q.dbId}`, await loadDatabaseFrom(asSql(db.$client), q.dataset, q.dbId))
      .get(`${q.dataset}:${q.dbId}`)!;

  // With METRON_DIRECTIVE_MODEL / METRON_EMBEDDING_MODEL set, the phrases and embeddings come from those models (as
  // in reruns and sweeps); each question's phrases and each text's embedding are asked once, whatever the grid.
  const models = {
    phrases: process.env.METRON_DIRECTIVE_MODEL ?? null,
    embeddings: process.env.METRON_EMBEDDING_MODEL ?? null,
  };
  const deps = models.phrases || models.embeddings ? memoised(directiveDeps()) : undefined;
  // --cv: each question's work that its configuration does not change (its phrases' keyword hits and similarities, its
  // compound parts, its values) is kept across the grid's 1,280 configurations. One configuration (ms/question, the
  // product's cost) computes everything anew, as a rerun does.
  const gridDeps = { ...deps, memo: new DirectiveMemo() };
  const modelNote =
    models.phrases || models.embeddings
      ? `phrases from ${models.phrases ?? "the keyword extractor"}, ${models.embeddings ? `embeddings from ${models.embeddings} fused with BM25` : "BM25 only"}`
      : `no model: keyword phrases; BM25, fused with the shipped word vectors (${SHIPPED_EMBEDDER}) where a configuration turns the semantic half on${process.env.METRON_WORD_VECTORS === "off" ? " (off: METRON_WORD_VECTORS=off)" : ""}`;

  let withheld = 0;
  const score = async (p: ComputedParams, misses?: string[], withDeps = deps): Promise<QuestionScore[]> => {
    const out: QuestionScore[] = [];
    for (const q of questions) {
      const database = await databaseOf(q);
      const r = await directivesFor(values.variant as Variant, q, database, { params: p, deps: withDeps });
      const irrelevant = new Set((r?.irrelevant ?? []).map((t) => t.toLowerCase()));
      const gold = q.goldTables.map((t) => t.toLowerCase());
      const nonGold = database.tables.map((t) => t.name.toLowerCase()).filter((t) => !gold.includes(t));
      const keptGold = gold.filter((t) => !irrelevant.has(t)).length;
      out.push({
        dataset: q.dataset,
        database: q.dbId,
        recall: keptGold / gold.length,
        flagged: nonGold.length ? nonGold.filter((t) => irrelevant.has(t)).length / nonGold.length : null,
      });
      // Only the design half's misses are listed: rules may be designed on them, and the held-out half stays unread.
      if (misses && keptGold < gold.length && !isDesignDatabase(q.dataset, q.dbId)) withheld++;
      else if (misses && keptGold < gold.length)
        misses.push(
          `${q.id} [${q.dbId}] lost ${gold.filter((t) => irrelevant.has(t))} — ${q.text} | ${q.evidence ?? ""} | phrases ${JSON.stringify((r?.explanation as { phrases?: string[] })?.phrases)}`,
        );
    }
    return out;
  };

  if (values.cv) {
    const configs = grid();
    const started = performance.now();
    const scores: QuestionScore[][] = [];
    for (const c of configs) scores.push(await score(c, undefined, gridDeps));
    const cv = crossValidate(scores);
    const worst = worstFolds(cv);
    const split = frozenSplit(scores);
    const defaults = await score(DEFAULT_PARAMS, undefined, gridDeps);
    const isDesign = (s: QuestionScore) => isDesignDatabase(s.dataset, s.database);
    const changed = (c: ComputedParams) =>
      Object.fromEntries(Object.entries(c).filter(([k, v]) => DEFAULT_PARAMS[k as keyof ComputedParams] !== v));
    const out = {
      models: modelNote,
      method:
        "leave-one-database-out over a grid; utility = flagged − 4·(1 − recall) per dataset, averaged over datasets",
      configurations: configs.length,
      held_out: cv.heldOut,
      held_out_pooled: pooledHeldOut(scores, cv),
      folds: cv.folds.map((f) => ({
        dataset: f.dataset,
        database: f.database,
        design_half: isDesignDatabase(f.dataset, f.database),
        chosen_differs_from_defaults: changed(configs[f.chosen]),
        ...f.figures,
      })),
      worst_database: {
        by_flagged: `${worst.byFlagged.dataset}/${worst.byFlagged.database}`,
        flagged: worst.byFlagged.figures.flagged,
        by_recall: `${worst.byRecall.dataset}/${worst.byRecall.database}`,
        recall: worst.byRecall.figures.recall,
      },
      chosen_on_all: configs[cv.chosen],
      tuned_on_figures: cv.tunedOn,
      frozen_split: {
        rule: "design databases: first byte of SHA-256(dataset/database) even; chosen on them, scored on the rest",
        chosen_on_design: configs[split.chosen],
        design_tuned_on: split.design,
        held_out: split.heldOut,
        held_out_per_database: split.perDatabase,
      },
      shipped_defaults: DEFAULT_PARAMS,
      shipped_defaults_are_chosen: JSON.stringify(configs[cv.chosen]) === JSON.stringify(DEFAULT_PARAMS),
      shipped_defaults_on_held_out_half: figuresOf(defaults.filter((s) => !isDesign(s))),
      shipped_defaults_on_design_half: figuresOf(defaults.filter(isDesign)),
      seconds: (performance.now() - started) / 1000,
    };
    // Two decimals: the goal's thresholds (recall 95 %, flagged 75 %) are judged on these lines, and 95.05 % must not
    // read as 95.1 %.
    const pct = (x: number) => `${(100 * x).toFixed(2)}%`;
    const line = (f: Figures) =>
      `recall ${pct(f.recall)} · non-gold flagged ${flaggedText(f)} · every gold table kept ${pct(f.allGoldKept)} · ${f.questions} questions`;
    if (values.json) console.log(JSON.stringify(out, null, 2));
    else {
      console.log(`models: ${modelNote}; ${configs.length} configurations`);
      console.log("Leave-one-database-out (each database scored with the configuration chosen without it):");
      for (const [d, f] of Object.entries(out.held_out)) console.log(`  held out (${d}): ${line(f)}`);
      console.log(`  held out, pooled: ${line(out.held_out_pooled)}`);
      for (const f of out.folds)
        console.log(
          `    ${f.dataset}/${f.database}${f.design_half ? "" : " [held-out half]"}: recall ${pct(f.recall)} · flagged ${flaggedText(f)} (${f.questions} q)${Object.keys(f.chosen_differs_from_defaults).length ? ` chose ${JSON.stringify(f.chosen_differs_from_defaults)}` : ""}`,
        );
      console.log(
        `  worst database: ${out.worst_database.by_flagged} flags ${pct(out.worst_database.flagged)}; ${out.worst_database.by_recall} keeps ${pct(out.worst_database.recall)} of gold tables`,
      );
      for (const [d, f] of Object.entries(out.tuned_on_figures))
        console.log(`  tuned on (${d}, chosen on all data, NOT held out): ${line(f)}`);
      console.log(`Frozen split (${out.frozen_split.rule}):`);
      console.log(`  tuned on, design half: ${line(split.design)}`);
      console.log(`  held out, other half: ${line(split.heldOut)}`);
      for (const d of split.perDatabase)
        console.log(
          `    ${d.dataset}/${d.database}: recall ${pct(d.figures.recall)} · flagged ${pct(d.figures.flagged)}`,
        );
      console.log(`Shipped defaults on the held-out half: ${line(out.shipped_defaults_on_held_out_half)}`);
      console.log(`Shipped defaults on the design half: ${line(out.shipped_defaults_on_design_half)}`);
      console.log(
        `chosen on all: ${JSON.stringify(out.chosen_on_all)}${out.shipped_defaults_are_chosen ? " (= the shipped defaults)" : " (differs from the shipped defaults!)"}`,
      );
      console.log(
        `chosen on the design half: ${JSON.stringify(changed(configs[split.chosen]))} (differences from the defaults)`,
      );
      console.log(`${out.seconds.toFixed(1)} s`);
    }
    db.$client.close();
    return 0;
  }

  const misses: string[] = [];
  const start = performance.now();
  const scores = await score(params, values.misses ? misses : undefined);
  const ms = (performance.now() - start) / questions.length;
  const f = figuresOf(scores);
  const out = {
    models: modelNote,
    half,
    questions: f.questions,
    recall: f.recall,
    flagged: f.flagged,
    all_gold_kept: f.allGoldKept,
    ms_per_question: ms,
    ...(values["per-database"] ? { per_database: figuresPerDatabase(scores) } : {}),
  };
  if (values.json) console.log(JSON.stringify(out, null, 2));
  else {
    console.log(`dataset ${values.dataset}, variant ${values.variant}, ${out.questions} questions`);
    console.log(
      `recall of gold tables ${(100 * out.recall).toFixed(2)}% · non-gold flagged ${flaggedText(f)} · every gold table kept ${(100 * out.all_gold_kept).toFixed(1)}% · ${ms.toFixed(2)} ms/question`,
    );
    console.log(`parameters: ${JSON.stringify(params)} (${modelNote})`);
    if (half !== "all") console.log(`the frozen split's ${half} half only (${questions.length} questions)`);
    for (const { dataset, database, figures: f } of out.per_database ?? [])
      console.log(
        `  ${dataset}/${database}${isDesignDatabase(dataset, database) ? "" : " [held-out half]"}: recall ${(100 * f.recall).toFixed(2)}% · flagged ${flaggedText(f)} (${f.questions} q)`,
      );
    misses.slice(0, 200).forEach((m) => console.log("  miss", m));
    if (misses.length > 200) console.log(`  … and ${misses.length - 200} more misses`);
    if (withheld)
      console.log(
        `  ${withheld} questions of the held-out half lost a gold table; their misses are not listed (the split's held-out half is scored, not read)`,
      );
  }
  db.$client.close();
  return 0;
}

/** The models' answers kept per question and per text: a grid of configurations asks each once. */
function memoised(deps: ComputedDeps & { embedderName?: string }): ComputedDeps & { embedderName?: string } {
  const phrases = new Map<string, Promise<string[]>>();
  const vectors = new Map<string, Promise<number[]>>();
  return {
    ...deps,
    phrases: deps.phrases
      ? (question, evidence) => {
          const key = `${question}\u0000${evidence ?? ""}`;
          if (!phrases.has(key)) phrases.set(key, deps.phrases!(question, evidence));
          return phrases.get(key)!;
        }
      : undefined,
    embed: deps.embed
      ? async (texts) => {
          const missing = texts.filter((t) => !vectors.has(t));
          if (missing.length) {
            const asked = deps.embed!(missing);
            missing.forEach((t, i) =>
              vectors.set(
                t,
                asked.then((v) => v[i]),
              ),
            );
          }
          return Promise.all(texts.map((t) => vectors.get(t)!));
        }
      : undefined,
  };
}

/** The share flagged, or why there is none: no question here has a table that is not gold. */
const flaggedText = (f: Figures) =>
  f.flaggedQuestions ? `${(100 * f.flagged).toFixed(2)}%` : "not applicable (every table of every question is gold)";
