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
import { extractPhrases, splitIdentifier, stem } from "./keywords";
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
}

// Chosen on the BIRD mini-dev dev split (docs/environment.md): one table per phrase, at most 12 phrases.
export const DEFAULT_PARAMS: ComputedParams = { maxPhrases: 12, tablesPerPhrase: 1, minScoreRatio: 0.6, expandBridges: true, rrfK: 60 };

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
}

export function buildKeywordIndex(database: DatabaseInfo): ColumnIndex {
  const docs: ColumnDoc[] = [];
  for (const t of database.tables) {
    for (const c of t.columns) docs.push({ id: docs.length, table: t.name, column: c.name, description: c.description ?? "", values: c.valueDescription ?? "" });
  }
  const keyword = new MiniSearch<ColumnDoc>({ fields: ["table", "column", "description", "values"], storeFields: ["table", "column"], tokenize, processTerm: (t) => t || null });
  keyword.addAll(docs);
  return { keyword, docs };
}

function rankTables(index: ColumnIndex, phrase: string, params: ComputedParams, phraseEmbedding?: number[]): { table: string; score: number }[] {
  const hits = index.keyword.search(phrase, { boost: { column: 3, table: 2, description: 1, values: 0.5 }, combineWith: "OR" });
  let ranked: { id: number; score: number }[] = hits.map((h) => ({ id: h.id as number, score: h.score }));
  if (phraseEmbedding && index.embeddings) {
    const cos = (a: number[], b: number[]) => { let d = 0, na = 0, nb = 0; for (let i = 0; i < a.length; i++) { d += a[i] * b[i]; na += a[i] ** 2; nb += b[i] ** 2; } return d / Math.sqrt(na * nb || 1); };
    const semantic = index.docs.map((d) => ({ id: d.id, score: cos(phraseEmbedding, index.embeddings![d.id]) })).sort((a, b) => b.score - a.score).slice(0, 50);
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
    const table = index.docs[h.id].table;
    if (!tables.some((t) => t.table === table)) tables.push({ table, score: h.score });
  }
  return tables;
}

/** Tables that connect two kept tables through foreign keys (a one-table bridge). */
function bridges(database: DatabaseInfo, kept: Set<string>): string[] {
  const neighbours = new Map<string, Set<string>>();
  const link = (a: string, b: string) => { if (!neighbours.has(a)) neighbours.set(a, new Set()); neighbours.get(a)!.add(b); };
  for (const fk of database.foreignKeys) { link(fk.table.toLowerCase(), fk.refTable.toLowerCase()); link(fk.refTable.toLowerCase(), fk.table.toLowerCase()); }
  const keptLower = new Set([...kept].map((t) => t.toLowerCase()));
  const out: string[] = [];
  for (const t of database.tables) {
    const key = t.name.toLowerCase();
    if (keptLower.has(key)) continue;
    const n = [...(neighbours.get(key) ?? [])].filter((x) => keptLower.has(x));
    const direct = n.some((a) => n.some((b) => a !== b && !(neighbours.get(a)?.has(b))));
    if (direct) out.push(t.name);
  }
  return out;
}

export async function computeDirectives(question: QuestionInfo, database: DatabaseInfo, index: ColumnIndex, params: ComputedParams = DEFAULT_PARAMS, deps: ComputedDeps = {}): Promise<DirectiveResult> {
  const phrases = deps.phrases ? (await deps.phrases(question.text, question.evidence)).slice(0, params.maxPhrases) : extractPhrases(question.text, question.evidence, params.maxPhrases);
  const phraseEmbeddings = deps.embed && index.embeddings && phrases.length ? await deps.embed(phrases) : undefined;
  const kept = new Set<string>();
  const hits: Record<string, string[]> = {};
  phrases.forEach((p, i) => {
    const tables = rankTables(index, p, params, phraseEmbeddings?.[i]).map((t) => t.table);
    hits[p] = tables;
    tables.forEach((t) => kept.add(t));
  });
  // A table the question or evidence names outright is kept.
  const words = new Set(splitIdentifier(`${question.text} ${question.evidence ?? ""}`).map(stem));
  const named = database.tables.filter((t) => { const parts = splitIdentifier(t.name).map(stem); return parts.length > 0 && parts.every((p) => words.has(p)); }).map((t) => t.name);
  named.forEach((t) => kept.add(t));
  const bridged = params.expandBridges ? bridges(database, kept) : [];
  bridged.forEach((t) => kept.add(t));
  return {
    irrelevant: database.tables.map((t) => t.name).filter((t) => !kept.has(t)),
    explanation: { strategy: "computed", phrase_source: deps.phrases ? "model" : "keywords", semantic: Boolean(phraseEmbeddings), params, phrases, hits, named, bridged },
  };
}

export function computedStrategy(indexFor: (db: DatabaseInfo) => Promise<ColumnIndex> | ColumnIndex, params: ComputedParams = DEFAULT_PARAMS, deps: ComputedDeps = {}): DirectiveStrategy {
  return async (question, database) => computeDirectives(question, database, await indexFor(database), params, deps);
}
