/**
 * Sophrosyne's computed directives. Offline, per database file: a keyword index (BM25, minisearch) over the
 * individual columns — table name, column name, description and value description where the benchmark has them
 * — optionally fused by reciprocal rank fusion with a semantic index when an embedder is configured. Online: the
 * question and its evidence become short column-like phrases (a cheap model when configured, else the
 * deterministic extractor in keywords.ts); each phrase retrieves the tables of its best hits; tables the question
 * names outright are kept; tables that bridge two kept tables through foreign keys are kept too. The union is
 * the relevant set and every other table is a directive. Every parameter is recorded in the explanation.
 */
import MiniSearch from "minisearch";
import type { DatabaseInfo, QuestionInfo } from "../database-info";
import { contentWords, extractPhrases, splitIdentifier, stem } from "./keywords";
import { buildValueIndex, questionLiterals, type ValueIndex } from "./values";
import type { DirectiveResult, DirectiveStrategy } from "./types";

export interface ComputedParams {
  /** Phrases per question (the paper's model writes up to 8; the keyword extractor may write more). */
  maxPhrases: number;
  /** Tables each phrase keeps: those of its hits scoring at least `minScoreRatio` of its best hit, at most `tablesPerPhrase`. */
  tablesPerPhrase: number;
  minScoreRatio: number;
  /** Keep tables that join two kept tables through a foreign key. */
  expandBridges: boolean;
  /** Reciprocal rank fusion constant (with a semantic index). */
  rrfK: number;
  /** Split question words on the schema's own words ("Stadionnamen" → "stadion"). */
  splitCompounds: boolean;
  /** A phrase of several words only keeps a table where all its words meet in one column. */
  phraseWordsTogether: boolean;
  /** Keep the tables holding a value the question names literally, when at most `maxValueTables` hold it. */
  matchValues: boolean;
  maxValueTables: number;
  /**
   * A hit on a column that references another table (a foreign key such as `comments.UserId`) speaks for the table
   * it references (`users`): "user" names the users, not every table that points at them.
   */
  followReferences: boolean;
}

// Chosen by leave-one-database-out cross-validation on BIRD mini-dev and Spider-de together (`npm run bench --
// directives --dataset bird-minidev,spider-de --cv`; held-out figures in docs/environment.md).
export const DEFAULT_PARAMS: ComputedParams = {
  maxPhrases: 12,
  tablesPerPhrase: 1,
  minScoreRatio: 0.8,
  expandBridges: true,
  rrfK: 60,
  splitCompounds: true,
  matchValues: true,
  maxValueTables: 2,
  phraseWordsTogether: false,
  followReferences: true,
};

export interface ColumnDoc {
  id: number;
  table: string;
  column: string;
  description: string;
  values: string;
}

/** Optional model-backed parts, injected by the caller (lib/agent providers). */
export interface ComputedDeps {
  phrases?: (question: string, evidence: string | null) => Promise<string[]>;
  embed?: (texts: string[]) => Promise<number[][]>;
}

const tokenize = (text: string) => splitIdentifier(text).map(stem);

export interface ColumnIndex {
  keyword: MiniSearch<ColumnDoc>;
  docs: ColumnDoc[];
  embeddings?: number[][];
  /** Short text values of the database's rows and the tables holding them (empty for schema-only databases). */
  values?: ValueIndex;
}

export function buildKeywordIndex(database: DatabaseInfo): ColumnIndex {
  const docs: ColumnDoc[] = [];
  for (const t of database.tables) {
    for (const c of t.columns)
      docs.push({
        id: docs.length,
        table: t.name,
        column: c.name,
        description: c.description ?? "",
        values: c.valueDescription ?? "",
      });
  }
  const keyword = new MiniSearch<ColumnDoc>({
    fields: ["table", "column", "description", "values"],
    storeFields: ["table", "column"],
    tokenize,
    processTerm: (t) => t || null,
  });
  keyword.addAll(docs);
  return { keyword, docs, values: buildValueIndex(database) };
}

// The schema's own words (from table and column names), for splitting compounds such as "Stadionnamen".
const vocabularies = new WeakMap<ColumnIndex, string[]>();
function vocabulary(index: ColumnIndex): string[] {
  let words = vocabularies.get(index);
  if (!words) {
    const set = new Set<string>();
    for (const d of index.docs)
      for (const w of [...tokenize(d.table), ...tokenize(d.column)]) if (w.length >= 4) set.add(w);
    vocabularies.set(index, (words = [...set]));
  }
  return words;
}

/** Schema words hidden inside longer question words (German compounds): "automodelle" → "auto", "modell". */
export function compoundParts(index: ColumnIndex, text: string): string[] {
  const vocab = vocabulary(index);
  const known = new Set(vocab);
  const out = new Set<string>();
  for (const w of contentWords(text).map(stem)) {
    if (known.has(w) || w.length < 6) continue;
    for (const v of vocab) if (v.length < w.length && w.includes(v)) out.add(v);
  }
  return [...out];
}

const valueMaps = new WeakMap<ColumnIndex, Map<string, string[]>>();
/** Tables holding a value the question or evidence names literally. */
export function valueTables(index: ColumnIndex, text: string): Record<string, string[]> {
  if (!index.values?.length) return {};
  let map = valueMaps.get(index);
  if (!map) valueMaps.set(index, (map = new Map(index.values)));
  const hits: Record<string, string[]> = {};
  for (const literal of questionLiterals(text)) {
    const tables = map.get(literal);
    if (tables && !STOP_LITERALS.has(literal)) hits[literal] = tables;
  }
  return hits;
}
// Words that are values somewhere but say nothing about which table (yes/no flags and the like).
const STOP_LITERALS = new Set(["yes", "no", "true", "false", "none", "null", "n/a", "ja", "nein"]);

/** `table.column` (lower case) → the table a foreign key of that column references. */
const referenceMaps = new WeakMap<DatabaseInfo, Map<string, string>>();
function referencesOf(database: DatabaseInfo): Map<string, string> {
  let map = referenceMaps.get(database);
  if (!map) {
    map = new Map();
    const names = new Map(database.tables.map((t) => [t.name.toLowerCase(), t.name]));
    for (const fk of database.foreignKeys) {
      const target = names.get(fk.refTable.toLowerCase());
      if (target && fk.refTable.toLowerCase() !== fk.table.toLowerCase())
        map.set(`${fk.table}.${fk.column}`.toLowerCase(), target);
    }
    // Without a declared key, a column named after another table (`UserId`, `UserDisplayName`, `stadium_id` where a
    // table `users` / `stadium` exists) refers to it too.
    const byWord = new Map<string, string>();
    for (const t of database.tables) {
      const words = splitIdentifier(t.name).map(stem);
      if (words.length === 1) byWord.set(words[0], t.name);
    }
    for (const t of database.tables)
      for (const c of t.columns) {
        const key = `${t.name}.${c.name}`.toLowerCase();
        const words = splitIdentifier(c.name).map(stem);
        const target = words.length >= 2 ? byWord.get(words[0]) : undefined;
        if (!map.has(key) && target && target !== t.name) map.set(key, target);
      }
    referenceMaps.set(database, map);
  }
  return map;
}

function rankTables(
  index: ColumnIndex,
  phrase: string,
  params: ComputedParams,
  references: Map<string, string> | null,
  phraseEmbedding?: number[],
): { table: string; score: number }[] {
  // A phrase of several words names one column: its words must meet in one column's document (its single words are
  // phrases of their own), else a pair like "customer consumed" keeps whichever table matches either word best.
  const together = params.phraseWordsTogether && tokenize(phrase).length > 1;
  const hits = index.keyword.search(phrase, {
    boost: { column: 3, table: 2, description: 1, values: 0.5 },
    combineWith: together ? "AND" : "OR",
  });
  let ranked: { id: number; score: number }[] = hits.map((h) => ({ id: h.id as number, score: h.score }));
  if (phraseEmbedding && index.embeddings) {
    const cos = (a: number[], b: number[]) => {
      let d = 0,
        na = 0,
        nb = 0;
      for (let i = 0; i < a.length; i++) {
        d += a[i] * b[i];
        na += a[i] ** 2;
        nb += b[i] ** 2;
      }
      return d / Math.sqrt(na * nb || 1);
    };
    const semantic = index.docs
      .map((d) => ({ id: d.id, score: cos(phraseEmbedding, index.embeddings![d.id]) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 50);
    const fused = new Map<number, number>();
    ranked.slice(0, 50).forEach((h, r) => fused.set(h.id, (fused.get(h.id) ?? 0) + 1 / (params.rrfK + r + 1)));
    semantic.forEach((h, r) => fused.set(h.id, (fused.get(h.id) ?? 0) + 1 / (params.rrfK + r + 1)));
    ranked = [...fused.entries()].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
  }
  if (ranked.length === 0) return [];
  const best = ranked[0].score;
  const tables: { table: string; score: number }[] = [];
  for (const h of ranked) {
    if (h.score < best * params.minScoreRatio || tables.length >= params.tablesPerPhrase) break;
    const doc = index.docs[h.id];
    const table = references?.get(`${doc.table}.${doc.column}`.toLowerCase()) ?? doc.table;
    if (!tables.some((t) => t.table === table)) tables.push({ table, score: h.score });
  }
  return tables;
}

/** Tables that connect two kept tables through foreign keys (a one-table bridge). */
function bridges(database: DatabaseInfo, kept: Set<string>): string[] {
  const neighbours = new Map<string, Set<string>>();
  const link = (a: string, b: string) => {
    if (!neighbours.has(a)) neighbours.set(a, new Set());
    neighbours.get(a)!.add(b);
  };
  for (const fk of database.foreignKeys) {
    link(fk.table.toLowerCase(), fk.refTable.toLowerCase());
    link(fk.refTable.toLowerCase(), fk.table.toLowerCase());
  }
  const keptLower = new Set([...kept].map((t) => t.toLowerCase()));
  const out: string[] = [];
  for (const t of database.tables) {
    const key = t.name.toLowerCase();
    if (keptLower.has(key)) continue;
    const n = [...(neighbours.get(key) ?? [])].filter((x) => keptLower.has(x));
    const direct = n.some((a) => n.some((b) => a !== b && !neighbours.get(a)?.has(b)));
    if (direct) out.push(t.name);
  }
  return out;
}

export async function computeDirectives(
  question: QuestionInfo,
  database: DatabaseInfo,
  index: ColumnIndex,
  params: ComputedParams = DEFAULT_PARAMS,
  deps: ComputedDeps = {},
): Promise<DirectiveResult> {
  const phrases = deps.phrases
    ? (await deps.phrases(question.text, question.evidence)).slice(0, params.maxPhrases)
    : extractPhrases(question.text, question.evidence, params.maxPhrases);
  const phraseEmbeddings = deps.embed && index.embeddings && phrases.length ? await deps.embed(phrases) : undefined;
  const kept = new Set<string>();
  const hits: Record<string, string[]> = {};
  const references = params.followReferences ? referencesOf(database) : null;
  phrases.forEach((p, i) => {
    const tables = rankTables(index, p, params, references, phraseEmbeddings?.[i]).map((t) => t.table);
    hits[p] = tables;
    tables.forEach((t) => kept.add(t));
  });
  // A table the question or evidence names outright is kept.
  const words = new Set(splitIdentifier(`${question.text} ${question.evidence ?? ""}`).map(stem));
  const named = database.tables
    .filter((t) => {
      const parts = splitIdentifier(t.name).map(stem);
      return parts.length > 0 && parts.every((p) => words.has(p));
    })
    .map((t) => t.name);
  named.forEach((t) => kept.add(t));
  // Schema words inside compounds, as phrases of their own.
  const parts = params.splitCompounds ? compoundParts(index, `${question.text} ${question.evidence ?? ""}`) : [];
  for (const p of parts) {
    const tables = rankTables(index, p, params, references).map((t) => t.table);
    hits[p] = tables;
    tables.forEach((t) => kept.add(t));
  }
  // Tables holding a value the question names.
  const valueHits = params.matchValues ? valueTables(index, `${question.text} ${question.evidence ?? ""}`) : {};
  for (const tables of Object.values(valueHits))
    if (tables.length <= params.maxValueTables) tables.forEach((t) => kept.add(t));
  const bridged = params.expandBridges ? bridges(database, kept) : [];
  bridged.forEach((t) => kept.add(t));
  return {
    irrelevant: database.tables.map((t) => t.name).filter((t) => !kept.has(t)),
    explanation: {
      strategy: "computed",
      phrase_source: deps.phrases ? "model" : "keywords",
      semantic: Boolean(phraseEmbeddings),
      params,
      phrases,
      hits,
      compound_parts: parts,
      value_hits: valueHits,
      named,
      bridged,
    },
  };
}

export function computedStrategy(
  indexFor: (db: DatabaseInfo) => Promise<ColumnIndex> | ColumnIndex,
  params: ComputedParams = DEFAULT_PARAMS,
  deps: ComputedDeps = {},
): DirectiveStrategy {
  return async (question, database) => computeDirectives(question, database, await indexFor(database), params, deps);
}
