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
import {
  contentWords,
  englishTerms,
  extractPhrases,
  germanStem,
  indexTerms,
  isGerman,
  splitIdentifier,
  stem,
} from "./keywords";
import { buildValueIndex, questionLiterals, type ValueIndex } from "./values";
import type { DirectiveResult, DirectiveStrategy } from "./types";

export interface ComputedParams {
  /** Phrases per question (the paper's model writes up to 8; the keyword extractor may write more). */
  maxPhrases: number;
  /** Tables each phrase keeps: those of its hits scoring at least `minScoreRatio` of its best hit, at most `tablesPerPhrase`. */
  tablesPerPhrase: number;
  minScoreRatio: number;
  /**
   * Tables that join kept tables: `none`; `any` keeps every table with foreign keys to two kept tables that have no
   * key between them (the rule before issue 34); `need` keeps a table only when it lies on a shortest foreign-key
   * path between two kept tables that the kept tables do not already connect (bridging by need).
   */
  bridging: "none" | "any" | "need";
  /** With `need`: the most tables a bridge may add between two kept tables (1: one table between them). */
  maxBridgeTables: number;
  /** Use the semantic index (configured embedding model, else the shipped word vectors) beside BM25. */
  semantic: boolean;
  /**
   * `fuse`: every phrase ranks by reciprocal rank fusion of both halves (the paper); `fallback`: the semantic half
   * ranks only the phrases BM25 finds nothing for (a word no column spells, such as "won" for `wins`).
   */
  semanticMode: "fuse" | "fallback";
  /** A semantic hit counts only from this cosine similarity up (word vectors rank everything, relevant or not). */
  minSimilarity: number;
  /** Reciprocal rank fusion constant (with a semantic index). */
  rrfK: number;
  /** Split question words on the schema's own words ("Stadionnamen" → "stadion"). */
  splitCompounds: boolean;
  /**
   * A German question (two German function words) also searches Snowball's German stems of its words and the
   * schema's ("Lehrkräfte" finds `lehrer`, "Namen" finds `name`); an English question searches English stems only.
   */
  germanStems: boolean;
  /** A phrase of several words only keeps a table where all its words meet in one column. */
  phraseWordsTogether: boolean;
  /** Keep the tables holding a value the question names literally, when at most `maxValueTables` hold it. */
  matchValues: boolean;
  maxValueTables: number;
  /**
   * A hit on a column that references another table (a foreign key such as `comments.UserId`) speaks for the table
   * it references (`users`): "user" names the users, not every table that points at them. A key column whose name
   * qualifies what it references (`OwnerUserId`, `zielflughafen`: a role, `plainKey`) speaks for its own table too.
   */
  followReferences: boolean;
  /**
   * When no phrase, schema word, name or value met any table of the database, flag nothing instead of every table:
   * the index has found no evidence about the question, and a directive that every table is irrelevant is never
   * right (a question reads at least one table). Off: such a question flags every table, as before 2026-12-05.
   */
  keepAllWithoutEvidence: boolean;
}

// Chosen by leave-one-database-out cross-validation on BIRD mini-dev and Spider-de together (`npm run bench --
// directives --dataset bird-minidev,spider-de --cv`; held-out figures in docs/environment.md). The semantic half
// (shipped word vectors) is in the grid and was not chosen: on these databases it keeps more non-gold tables than
// the gold tables it saves are worth under the utility; `semantic: true` turns it on. Bridging by need was not
// chosen either (BIRD: recall 95.5 % / flagged 82.2 % against 95.9 % / 81.2 % for `any`, a lower utility);
// `bridging: "need"` turns it on.
export const DEFAULT_PARAMS: ComputedParams = {
  maxPhrases: 12,
  tablesPerPhrase: 1,
  minScoreRatio: 0.8,
  bridging: "any",
  maxBridgeTables: 1,
  semantic: false,
  semanticMode: "fuse",
  minSimilarity: 0.6,
  rrfK: 60,
  splitCompounds: true,
  germanStems: true,
  matchValues: true,
  maxValueTables: 2,
  phraseWordsTogether: false,
  followReferences: true,
  keepAllWithoutEvidence: true,
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
  /** Work kept across calls by a caller that scores many configurations of the same questions (DirectiveMemo). */
  memo?: DirectiveMemo;
}

/**
 * What a question's directives compute from its text and its database's index alone, whatever the parameters that
 * come after (a phrase's keyword hits, its similarity to every column, the question's phrases, compound parts and
 * values), kept by the caller that scores one question under many configurations: the bench's cross-validation
 * (1,280 configurations), whose figures are those it gave computing each anew. Not used on the product's paths,
 * which compute one configuration once. Values handed out are shared: read, never changed.
 */
export class DirectiveMemo {
  private readonly root = new WeakMap<object, MemoNode>();
  /** How many times a kept value was handed out instead of computed. */
  hits = 0;

  /**
   * The value kept for these owners (an index, or an index and a question: objects, so that a long text is not
   * hashed as a key at every call) under `key`, or `make`'s, kept.
   */
  get<T>(owners: readonly object[], key: string, make: () => T): T {
    let level = this.root;
    let node: MemoNode | undefined;
    for (const owner of owners) {
      node = level.get(owner);
      if (!node) level.set(owner, (node = { next: new WeakMap(), values: new Map() }));
      level = node.next;
    }
    const values = node!.values;
    if (values.has(key)) {
      this.hits++;
      return values.get(key) as T;
    }
    const value = make();
    values.set(key, value);
    return value;
  }
}

interface MemoNode {
  next: WeakMap<object, MemoNode>;
  values: Map<string, unknown>;
}

const remember = <T>(memo: DirectiveMemo | undefined, owners: readonly object[], key: string, make: () => T): T =>
  memo ? memo.get(owners, key, make) : make();

/** How the index and a question's search tokenize: both stems in the index; a German question searches both. */
export const INDEX_TOKENIZER = { tokenize: indexTerms, processTerm: (t: string) => t || null };

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
    ...INDEX_TOKENIZER,
  });
  keyword.addAll(docs);
  return { keyword, docs, values: buildValueIndex(database) };
}

// The schema's own words (from table and column names), for splitting compounds such as "Stadionnamen": their
// English stems, and for a German question their German stems too ("Lehrkraft" holds `lehrer`'s stem "lehr").
const vocabularies = new WeakMap<ColumnIndex, Map<boolean, string[]>>();
function vocabulary(index: ColumnIndex, german: boolean): string[] {
  let byLanguage = vocabularies.get(index);
  if (!byLanguage) vocabularies.set(index, (byLanguage = new Map()));
  let words = byLanguage.get(german);
  if (!words) {
    const terms = german ? indexTerms : englishTerms;
    const set = new Set<string>();
    for (const d of index.docs) for (const w of [...terms(d.table), ...terms(d.column)]) if (w.length >= 4) set.add(w);
    byLanguage.set(german, (words = [...set]));
  }
  return words;
}

/**
 * Schema words hidden inside longer question words (German compounds): "automodelle" → "auto", "modell". In a German
 * question also: longer schema words that a question word of six letters or more (no schema word itself) begins,
 * since a compound's first part says what it is about ("Zeugnisses" → zeugnisinhalt); the singular of a Latin or
 * Greek plural that the schema names ("Museen" → `museum`, "Stadien" → `stadion`, "Themen" → `thema`), which no
 * stemmer reaches since the plural ends otherwise; and the verbs of its participles (below).
 */
export function compoundParts(
  index: ColumnIndex,
  text: string,
  german = isGerman(text),
  verbs: string[] = german ? verbStems(text) : [],
): string[] {
  const vocab = vocabulary(index, german);
  const known = new Set(vocab);
  const out = new Set<string>();
  const words = contentWords(text);
  for (const w of words.flatMap((w) => (german ? [stem(w), germanStem(w)] : [stem(w)]))) {
    if (known.has(w) || w.length < 6) continue;
    if (german) for (const v of vocab) if (v.length > w.length + 2 && v.startsWith(w)) out.add(v);
    for (const v of vocab) if (v.length < w.length && w.includes(v)) out.add(v);
  }
  if (german)
    for (const w of words) {
      if (w.length < 6 || !w.endsWith("en")) continue;
      const base = w.slice(0, -2);
      for (const ending of LATIN_SINGULARS) if (known.has(base + ending)) out.add(base + ending);
    }
  // A participle's verb (`verbStems`) that is a schema word, or, six letters or more, the head of one: German puts a
  // compound's head last ("eingeteilt" → einteil, the end of kurseinteil(ung)).
  for (const g of verbs)
    if (known.has(g)) out.add(g);
    else
      for (const v of vocab)
        if ((g.length >= 6 && v.length > g.length && v.endsWith(g)) || (g.length >= 4 && v.includes(g + "ung")))
          out.add(v);
  return [...out];
}

// German's separable verb prefixes, which put the participle's ge- after them (ein-ge-stellt, auf-ge-führt).
const SEPARABLE = /^(ab|an|auf|aus|bei|ein|fest|her|hin|mit|nach|teil|vor|weg|zu|zurück|zusammen)ge(.{3,})$/;
/** The German stems of the verbs a German text's participles and past forms are made of (not the words' own stems). */
export function verbStems(text: string): string[] {
  const out = new Set<string>();
  for (const w of contentWords(text))
    for (const base of verbBases(w)) {
      const g = germanStem(base);
      if (g !== germanStem(w)) out.add(g);
    }
  return [...out];
}

/**
 * The verb a German participle or past form is made of, for the noun the schema makes of the same verb: "eingestellt"
 * → einstell (`einstellung`), "besuchten" → besuch (`besuch`), "bestellt" → bestell (`bestellung`). Snowball leaves
 * the participle's ge- and the weak past's -t/-te/-ten on, so the verb and its noun never met. A strong participle
 * gives its stem with the vowels its verb may have: "eingeschrieben" → einschrieb, einschreib (`einschreibung…`).
 */
function verbBases(word: string): string[] {
  const out: string[] = [];
  const separable = SEPARABLE.exec(word);
  const core = separable
    ? separable[1] + separable[2]
    : word.startsWith("ge") && word.length >= 6
      ? word.slice(2)
      : /^(be|ver|er|ent|zer|emp)/.test(word)
        ? word
        : null;
  // A participle (eingestellt, gewählt, besucht): its weak -t or -et off.
  if (core && /[^aeiouäöü]e?t$/.test(core)) out.push(core.replace(/e?t$/, ""));
  // A participle or weak past with an ending (besuchten, eingestellten, beschäftigten): -te, -ten, -tes… off. Only
  // after a verb prefix: a noun in -te or -ten (Konzerte, Produkte, Daten) has none.
  const past = core ? /^(.{4,}?)e?t(e|en|er|es|em)$/.exec(core) : null;
  if (past) out.push(past[1]);
  // A strong participle (ein-ge-schrieb-en, ge-wonn-en): its -en off, and the vowel its verb has in the present,
  // by the few changes strong verbs make (ie → ei, o → e, ie or i, u → i). Only after ge-: a word in -en without it
  // is as likely an infinitive or a plural.
  const strong = core && (separable || word.startsWith("ge")) ? /^(.{3,}?[^aeiouäöü])en(e[nmrs]?)?$/.exec(core) : null;
  if (strong && !strong[1].endsWith("t")) {
    // Where the verb begins with ge- itself (ge-winn-en, ge-wonn-en), the participle adds none: both are tried.
    for (const base of separable ? [strong[1]] : [strong[1], "ge" + strong[1]]) {
      out.push(base);
      for (const [from, tos] of STRONG_VOWELS) {
        const at = base.lastIndexOf(from);
        if (at > 0 && !/[aeiouäöü]/.test(base.slice(at + from.length)))
          for (const to of tos) out.push(base.slice(0, at) + to + base.slice(at + from.length));
      }
    }
  }
  return out.filter((b) => b.length >= 4);
}

/** The vowel of a strong participle's last syllable, and the vowels its verb may have in the present. */
const STRONG_VOWELS: [string, string[]][] = [
  ["ie", ["ei"]],
  ["o", ["e", "ie", "i"]],
  ["u", ["i"]],
];

/** The singular endings of German's Latin and Greek plurals in -en: Museum/Museen, Stadion/Stadien, Thema/Themen. */
const LATIN_SINGULARS = ["um", "on", "a", "o"];

const valueMaps = new WeakMap<ColumnIndex, Map<string, string[]>>();
/** Tables holding a value the question or evidence names literally. */
export function valueTables(index: ColumnIndex, text: string): Record<string, string[]> {
  if (!index.values?.length) return {};
  let map = valueMaps.get(index);
  if (!map) valueMaps.set(index, (map = new Map(index.values)));
  const hits: Record<string, string[]> = {};
  for (const literal of questionLiterals(text)) {
    // A value stored without its spaces ('NorthCarolina' in Spider's student_transcripts_tracking) is named with them.
    const tables = map.get(literal) ?? (literal.includes(" ") ? map.get(literal.replace(/\s+/g, "")) : undefined);
    if (tables && !STOP_LITERALS.has(literal)) hits[literal] = tables;
  }
  return hits;
}
// Words that are values somewhere but say nothing about which table (yes/no flags and the like).
const STOP_LITERALS = new Set(["yes", "no", "true", "false", "none", "null", "n/a", "ja", "nein"]);

/**
 * The German stems of the words of the database's table names, each with the number of tables whose name holds it.
 * Snowball gives "Spieler" and "Spiele" one stem ("spiel"): where two tables share a stem (wta_1's `spieler` and
 * `spiele`), a question word with that stem names neither outright; its own form still does (the English stem, which
 * keeps the -er), and its phrases still search both.
 */
const stemOwnerMaps = new WeakMap<DatabaseInfo, Map<string, number>>();
function germanStemOwners(database: DatabaseInfo): Map<string, number> {
  let map = stemOwnerMaps.get(database);
  if (!map) {
    map = new Map();
    for (const t of database.tables)
      for (const g of new Set(splitIdentifier(t.name).map(germanStem))) map.set(g, (map.get(g) ?? 0) + 1);
    stemOwnerMaps.set(database, map);
  }
  return map;
}

/**
 * `table.column` (lower case) → the tables a hit on that key column speaks for: the table it references, or, for a key
 * that names a role (`plainKey`), its own table and the referenced one.
 */
const referenceMaps = new WeakMap<DatabaseInfo, Map<string, string[]>>();
/** Words that say a column is a key, not what it holds: `link_to_event` (BIRD student_club) names the event. */
const KEY_WORDS = new Set([
  "id",
  "ids",
  "code",
  "key",
  "fk",
  "nr",
  "no",
  "num",
  "number",
  "nummer",
  "ref",
  "link",
  "to",
]);

/**
 * Whether a key column's name says no more than what it references (`mitarbeiter_id`, `stadium_id`, `UserId`): every
 * word of it is a word of the referenced table's or column's name, or a key word. A qualified one (`zielflughafen`,
 * the destination airport; `OwnerUserId`, the post's owner) names a role the referencing table holds.
 */
export function plainKey(fk: { column: string; refTable: string; refColumn: string }): boolean {
  const own = new Set(
    [...splitIdentifier(fk.refTable), ...splitIdentifier(fk.refColumn)].flatMap((w) => [stem(w), germanStem(w)]),
  );
  // A number is no role: `atom_id2` (toxicology's second atom of a bond) names the atom as `atom_id` does.
  const words = splitIdentifier(fk.column)
    .map((w) => w.replace(/\d+$/, ""))
    .filter((w) => w && !KEY_WORDS.has(w));
  const named = (w: string) => own.has(stem(w)) || own.has(germanStem(w));
  if (words.every(named)) return true;
  // Qualified only where the referenced name is there with another word beside it (`OwnerUserId`, `zielflughafen`); a
  // column named otherwise (`student_id` for `highschooler`) is another name for what it references.
  const stems = [...own].filter((o) => o.length >= 4);
  return !words.some((w) => named(w) || stems.some((o) => w.length > o.length && germanStem(w).endsWith(o)));
}

function referencesOf(database: DatabaseInfo): Map<string, string[]> {
  let map = referenceMaps.get(database);
  if (!map) {
    map = new Map();
    const names = new Map(database.tables.map((t) => [t.name.toLowerCase(), t.name]));
    // A key stated from both sides (one-to-one, or a one-to-many read by an older import as a key of the referenced
    // column) names neither table: the referenced column would otherwise speak for the table that references it.
    const edge = (t: string, c: string, rt: string, rc: string) => `${t}.${c}>${rt}.${rc}`.toLowerCase();
    const edges = new Set(database.foreignKeys.map((fk) => edge(fk.table, fk.column, fk.refTable, fk.refColumn)));
    for (const fk of database.foreignKeys) {
      const target = names.get(fk.refTable.toLowerCase());
      const mirrored = edges.has(edge(fk.refTable, fk.refColumn, fk.table, fk.column));
      if (target && !mirrored && fk.refTable.toLowerCase() !== fk.table.toLowerCase())
        map.set(
          `${fk.table}.${fk.column}`.toLowerCase(),
          // A role (the destination airport, a hero's eye colour) lives in the referencing table, what fills it in the
          // referenced one: "Zielflughafen" needs the flights, "blue eyes" the colours.
          plainKey(fk) ? [target] : [names.get(fk.table.toLowerCase()) ?? fk.table, target],
        );
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
        if (!map.has(key) && target && target !== t.name) map.set(key, [target]);
      }
    referenceMaps.set(database, map);
  }
  return map;
}

/** Which half of the index put a table among a phrase's hits. */
export type HitSource = "keyword" | "semantic" | "both";

function cosine(a: number[], b: number[]): number {
  if (a.length === 0 || b.length !== a.length) return 0;
  let d = 0,
    na = 0,
    nb = 0;
  for (let i = 0; i < a.length; i++) {
    d += a[i] * b[i];
    na += a[i] ** 2;
    nb += b[i] ** 2;
  }
  return d / Math.sqrt(na * nb || 1);
}

const FUSED_DEPTH = 50;

/** A table a phrase's hit speaks for; `key` is the key column hit (`flüge.quellflughafen`) when it is another table's. */
interface RankedTable {
  table: string;
  score: number;
  via: HitSource;
  key: string | null;
}

function rankTables(
  index: ColumnIndex,
  phrase: string,
  params: ComputedParams,
  references: Map<string, string[]> | null,
  german: boolean,
  phraseEmbedding?: number[],
  memo?: DirectiveMemo,
): RankedTable[] {
  // A phrase of several words names one column: its words must meet in one column's document (its single words are
  // phrases of their own), else a pair like "customer consumed" keeps whichever table matches either word best.
  const together = params.phraseWordsTogether && englishTerms(phrase).length > 1;
  const keyword: readonly { id: number; score: number }[] = remember(
    memo,
    [index],
    `keyword\0${german}\0${together}\0${phrase}`,
    () =>
      index.keyword
        .search(phrase, {
          // An English phrase searches its English stems only; a German one its German stems too.
          tokenize: german ? indexTerms : englishTerms,
          boost: { column: 3, table: 2, description: 1, values: 0.5 },
          combineWith: together ? "AND" : "OR",
        })
        .map((h) => ({ id: h.id as number, score: h.score })),
  );
  let ranked = keyword;
  const keywordIds = new Set(ranked.slice(0, FUSED_DEPTH).map((h) => h.id));
  const semanticIds = new Set<number>();
  const semanticRanks = params.semanticMode === "fuse" || ranked.length === 0;
  if (phraseEmbedding?.length && index.embeddings && semanticRanks) {
    // Every column by similarity, most similar first (a stable sort: ties in the columns' order), then those from
    // the threshold up: the same list as filtering first.
    const bySimilarity: readonly { id: number; score: number }[] = remember(memo, [index], `semantic\0${phrase}`, () =>
      index.docs
        .map((d) => ({ id: d.id, score: cosine(phraseEmbedding, index.embeddings![d.id]) }))
        .sort((a, b) => b.score - a.score),
    );
    let above = 0; // most similar first: those from the threshold up are a prefix
    while (above < bySimilarity.length && above < FUSED_DEPTH && bySimilarity[above].score >= params.minSimilarity)
      above++;
    const semantic = bySimilarity.slice(0, above);
    semantic.forEach((h) => semanticIds.add(h.id));
    // Reciprocal rank fusion, as the paper does: each half contributes 1 / (k + rank).
    const fused = new Map<number, number>();
    ranked.slice(0, FUSED_DEPTH).forEach((h, r) => fused.set(h.id, (fused.get(h.id) ?? 0) + 1 / (params.rrfK + r + 1)));
    semantic.forEach((h, r) => fused.set(h.id, (fused.get(h.id) ?? 0) + 1 / (params.rrfK + r + 1)));
    ranked = [...fused.entries()].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
  }
  if (ranked.length === 0) return [];
  const best = ranked[0].score;
  const tables: RankedTable[] = [];
  for (const h of ranked) {
    if (h.score < best * params.minScoreRatio || tables.length >= params.tablesPerPhrase) break;
    const doc = index.docs[h.id];
    const via: HitSource = keywordIds.has(h.id) ? (semanticIds.has(h.id) ? "both" : "keyword") : "semantic";
    for (const table of references?.get(`${doc.table}.${doc.column}`.toLowerCase()) ?? [doc.table])
      if (!tables.some((t) => t.table === table))
        tables.push({ table, score: h.score, via, key: table === doc.table ? null : `${doc.table}.${doc.column}` });
  }
  return tables;
}

/** The schema's foreign keys as an undirected graph over lower-cased table names. */
function keyGraph(database: DatabaseInfo): Map<string, Set<string>> {
  const neighbours = new Map<string, Set<string>>();
  const link = (a: string, b: string) => {
    if (a === b) return;
    if (!neighbours.has(a)) neighbours.set(a, new Set());
    neighbours.get(a)!.add(b);
  };
  for (const fk of database.foreignKeys) {
    link(fk.table.toLowerCase(), fk.refTable.toLowerCase());
    link(fk.refTable.toLowerCase(), fk.table.toLowerCase());
  }
  return neighbours;
}

/** `any`: tables with keys to two kept tables that have no key between them (a one-table bridge). */
function anyBridges(database: DatabaseInfo, kept: Set<string>): string[] {
  const neighbours = keyGraph(database);
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

/** Breadth-first distances from `from` over the key graph. */
function distances(graph: Map<string, Set<string>>, from: string): Map<string, number> {
  const dist = new Map([[from, 0]]);
  const queue = [from];
  for (let i = 0; i < queue.length; i++)
    for (const n of graph.get(queue[i]) ?? [])
      if (!dist.has(n)) {
        dist.set(n, dist.get(queue[i])! + 1);
        queue.push(n);
      }
  return dist;
}

/**
 * `need`: the kept tables fall into groups the kept tables themselves connect by keys; for two kept tables in
 * different groups (no direct key, no path through kept tables), keep every table on a shortest key path between
 * them, when that path has at most `maxTables` tables between them. Kept tables the keys do not reach at all stay as they are (nothing to bridge). Ties are all kept: which
 * shortest path the SQL takes is not known, and a lost gold table costs more than an unflagged one.
 */
export function bridgesByNeed(database: DatabaseInfo, kept: Set<string>, maxTables = Infinity): string[] {
  const graph = keyGraph(database);
  const keptLower = [...new Set([...kept].map((t) => t.toLowerCase()))];
  const keptSet = new Set(keptLower);
  // Groups of kept tables connected through kept tables only.
  const group = new Map<string, number>();
  keptLower.forEach((start, g) => {
    if (group.has(start)) return;
    const queue = [start];
    group.set(start, g);
    for (let i = 0; i < queue.length; i++)
      for (const n of graph.get(queue[i]) ?? [])
        if (keptSet.has(n) && !group.has(n)) {
          group.set(n, g);
          queue.push(n);
        }
  });
  const out = new Set<string>();
  const dist = new Map(keptLower.map((t) => [t, distances(graph, t)]));
  for (let i = 0; i < keptLower.length; i++)
    for (let j = i + 1; j < keptLower.length; j++) {
      const [a, b] = [keptLower[i], keptLower[j]];
      if (group.get(a) === group.get(b)) continue;
      const d = dist.get(a)!.get(b);
      if (d === undefined || d - 1 > maxTables) continue;
      // A table lies on a shortest a–b path exactly when its distances to a and to b add up to d.
      for (const [t, da] of dist.get(a)!)
        if (!keptSet.has(t) && da + (dist.get(b)!.get(t) ?? Infinity) === d) out.add(t);
    }
  const names = new Map(database.tables.map((t) => [t.name.toLowerCase(), t.name]));
  return [...out].map((t) => names.get(t) ?? t);
}

/**
 * The tables a question names outright (every word of a table's name among the question's words or the verbs of its
 * participles), then its compound parts (schema words inside compounds, searched as phrases of their own) and the
 * tables a part names whole ("Zeugnissen" begins zeugnisinhalt, the name of `zeugnisinhalte`, whose columns' hits the
 * references rule sends elsewhere).
 */
function namesIn(
  database: DatabaseInfo,
  index: ColumnIndex,
  text: string,
  german: boolean,
  splitCompounds: boolean,
): { named: string[]; parts: string[] } {
  const terms = german ? indexTerms : englishTerms;
  const words = new Set(terms(text));
  // The verbs of a German question's participles name tables as its words do ("besuchten" names `besuch`).
  const verbs = german ? verbStems(text) : [];
  verbs.forEach((g) => words.add(g));
  const owners = german ? germanStemOwners(database) : null;
  /** The tables whose every name word is among `have` (a German stem only where one table has it). */
  const namedBy = (have: Set<string>) =>
    database.tables
      .filter((t) => {
        const parts = splitIdentifier(t.name);
        return (
          parts.length > 0 &&
          parts.every((p) => have.has(stem(p)) || (owners?.get(germanStem(p)) === 1 && have.has(germanStem(p))))
        );
      })
      .map((t) => t.name);
  const named = namedBy(words);
  const parts = splitCompounds ? compoundParts(index, text, german, verbs) : [];
  for (const t of namedBy(new Set(parts))) if (!named.includes(t)) named.push(t);
  return { named, parts };
}

/** What a question's words, phrases and values keep, before bridging: everything but the last two rules. */
interface Evidence {
  phrases: string[];
  semantic: boolean;
  kept: ReadonlySet<string>;
  hits: Record<string, string[]>;
  hitSources: Record<string, Record<string, HitSource>>;
  /** Per phrase, the tables it reached through a key column of another table, with that column (`table.column`). */
  hitKeys: Record<string, Record<string, string>>;
  named: string[];
  parts: string[];
  valueHits: Record<string, string[]>;
}

/** The parameters the evidence depends on: all but bridging's and the no-evidence rule's. */
const evidenceKey = (params: ComputedParams) =>
  JSON.stringify({ ...params, bridging: undefined, maxBridgeTables: undefined, keepAllWithoutEvidence: undefined });

async function gatherEvidence(
  question: QuestionInfo,
  database: DatabaseInfo,
  index: ColumnIndex,
  params: ComputedParams,
  deps: ComputedDeps,
): Promise<Evidence> {
  const memo = deps.memo;
  const phrases = deps.phrases
    ? (await deps.phrases(question.text, question.evidence)).slice(0, params.maxPhrases)
    : remember(memo, [index, question], `phrases\0${params.maxPhrases}`, () =>
        extractPhrases(question.text, question.evidence, params.maxPhrases),
      );
  const embed = deps.embed;
  const phraseEmbeddings =
    params.semantic && embed && index.embeddings && phrases.length
      ? await remember(memo, [index], `embeddings\0${phrases.join("\0")}`, () => embed(phrases))
      : undefined;
  const kept = new Set<string>();
  const hits: Record<string, string[]> = {};
  const hitSources: Record<string, Record<string, HitSource>> = {};
  const hitKeys: Record<string, Record<string, string>> = {};
  const keysOf = (phrase: string, tables: RankedTable[]) => {
    const through = tables.filter((t) => t.key !== null).map((t) => [t.table, t.key!]);
    if (through.length) hitKeys[phrase] = Object.fromEntries(through);
  };
  const references = params.followReferences
    ? remember(memo, [database], "references", () => referencesOf(database))
    : null;
  const text = `${question.text} ${question.evidence ?? ""}`;
  const german = params.germanStems && remember(memo, [index, question], "german", () => isGerman(text));
  phrases.forEach((p, i) => {
    const tables = rankTables(index, p, params, references, german, phraseEmbeddings?.[i], memo);
    hits[p] = tables.map((t) => t.table);
    hitSources[p] = Object.fromEntries(tables.map((t) => [t.table, t.via]));
    keysOf(p, tables);
    tables.forEach((t) => kept.add(t.table));
  });
  const { named, parts } = remember(memo, [index, question], `names\0${german}\0${params.splitCompounds}`, () =>
    namesIn(database, index, text, german, params.splitCompounds),
  );
  named.forEach((t) => kept.add(t));
  for (const p of parts) {
    const ranked = rankTables(index, p, params, references, german, undefined, memo);
    const tables = ranked.map((t) => t.table);
    hits[p] = tables;
    hitSources[p] = Object.fromEntries(tables.map((t) => [t, "keyword" as const]));
    keysOf(p, ranked);
    tables.forEach((t) => kept.add(t));
  }
  // Tables holding a value the question names.
  const valueHits = params.matchValues
    ? remember(memo, [index, question], "values", () => valueTables(index, text))
    : {};
  for (const tables of Object.values(valueHits))
    if (tables.length <= params.maxValueTables) tables.forEach((t) => kept.add(t));
  return { phrases, semantic: Boolean(phraseEmbeddings), kept, hits, hitSources, hitKeys, named, parts, valueHits };
}

export async function computeDirectives(
  question: QuestionInfo,
  database: DatabaseInfo,
  index: ColumnIndex,
  params: ComputedParams = DEFAULT_PARAMS,
  deps: ComputedDeps & { embedderName?: string } = {},
): Promise<DirectiveResult> {
  // With a memo, configurations that differ only in the last two rules share the evidence.
  const evidence = await remember(deps.memo, [index, question], evidenceKey(params), () =>
    gatherEvidence(question, database, index, params, deps),
  );
  const kept = new Set(evidence.kept);
  const bridged =
    params.bridging === "need"
      ? bridgesByNeed(database, kept, params.maxBridgeTables)
      : params.bridging === "any"
        ? anyBridges(database, kept)
        : [];
  bridged.forEach((t) => kept.add(t));
  const noEvidence = params.keepAllWithoutEvidence && !database.tables.some((t) => kept.has(t.name));
  return {
    irrelevant: noEvidence ? [] : database.tables.map((t) => t.name).filter((t) => !kept.has(t)),
    explanation: {
      strategy: "computed",
      phrase_source: deps.phrases ? "model" : "keywords",
      semantic: evidence.semantic,
      embedder: evidence.semantic ? (deps.embedderName ?? "embedder") : null,
      params,
      phrases: evidence.phrases,
      hits: evidence.hits,
      hit_sources: evidence.hitSources,
      hit_keys: evidence.hitKeys,
      compound_parts: evidence.parts,
      value_hits: evidence.valueHits,
      named: evidence.named,
      bridged,
      no_evidence: noEvidence,
    },
  };
}

export function computedStrategy(
  indexFor: (db: DatabaseInfo) => Promise<ColumnIndex> | ColumnIndex,
  params: ComputedParams = DEFAULT_PARAMS,
  deps: ComputedDeps & { embedderName?: string } = {},
): DirectiveStrategy {
  return async (question, database) => computeDirectives(question, database, await indexFor(database), params, deps);
}
