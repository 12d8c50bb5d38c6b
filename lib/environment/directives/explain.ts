/**
 * Why each table of a traced question was kept or flagged, read back from the computed strategy's explanation
 * (pure; the question page shows it). For every table: the phrases whose hits named it and which half of the index
 * named it (keyword = BM25, semantic = the embedding index, both), whether the question named it outright, held a
 * value the question names, or bridged kept tables, and the key column a phrase reached it through. Traces written before the halves were recorded say so.
 */
import { z } from "zod";
import type { HitSource } from "./computed";

export interface TableReason {
  kind: "phrase" | "compound" | "named" | "value" | "bridge";
  /** The phrase, compound part or value; empty for named and bridge. */
  text: string;
  /** Which half of the index named the table for this phrase; null when the trace did not record it. */
  via: HitSource | null;
  /**
   * The key column of another table that the phrase hit and that refers to this one (`flüge.quellflughafen` for
   * `flughäfen`); null for a hit on the table's own column, or when the trace did not record it.
   */
  through: string | null;
}

export interface TableExplanation {
  table: string;
  flagged: boolean;
  reasons: TableReason[];
}

export interface DirectiveExplanation {
  strategy: string;
  phraseSource: string | null;
  /** The semantic half's embedder (a configured model or the shipped word vectors); null when BM25 ran alone. */
  embedder: string | null;
  semantic: boolean;
  /** Nothing met any table, so nothing was flagged (`keepAllWithoutEvidence`); false for traces that did not say. */
  noEvidence: boolean;
  /** Whether the no-evidence rule was on when these directives were computed; null when the trace did not record it
   * (traces written before the rule, or by another writer). */
  noEvidenceRule: boolean | null;
  tables: TableExplanation[];
}

// The explanation comes from the trace file (any writer, any upload): read through a schema, never trusted. A field
// of the wrong shape is dropped; without `hits` there is nothing to explain.
const tables = z.array(z.string()).catch([]);
const recordedSchema = z.object({
  strategy: z.string().optional().catch(undefined),
  phrase_source: z.string().optional().catch(undefined),
  semantic: z.boolean().optional().catch(undefined),
  embedder: z.string().nullable().optional().catch(undefined),
  hits: z.record(z.string(), tables),
  hit_sources: z
    .record(z.string(), z.record(z.string(), z.enum(["keyword", "semantic", "both"]).catch("keyword")))
    .optional()
    .catch(undefined),
  hit_keys: z.record(z.string(), z.record(z.string(), z.string()).catch({})).optional().catch(undefined),
  compound_parts: tables.optional(),
  value_hits: z.record(z.string(), tables).optional().catch(undefined),
  named: tables.optional(),
  bridged: tables.optional(),
  no_evidence: z.boolean().optional().catch(undefined),
  params: z
    .object({
      maxValueTables: z.number().optional().catch(undefined),
      keepAllWithoutEvidence: z.boolean().optional().catch(undefined),
    })
    .optional()
    .catch(undefined),
});

export function explainDirectives(
  directives: { strategy: string; irrelevant_tables: string[] } | null | undefined,
  /** The strategy's explanation: kept in the trace's meta as `directives.explanation` (an extra key of directives). */
  recorded: unknown,
  databaseTables: string[] | null,
): DirectiveExplanation | null {
  const parsed = recordedSchema.safeParse(recorded);
  if (!directives || !parsed.success) return null;
  const e = parsed.data;
  const flagged = new Set(directives.irrelevant_tables.map((t) => t.toLowerCase()));
  const semantic = e.semantic === true;
  const reasons = new Map<string, TableReason[]>();
  const add = (table: string, reason: TableReason) => {
    const key = table.toLowerCase();
    if (!reasons.has(key)) reasons.set(key, []);
    reasons.get(key)!.push(reason);
  };
  const parts = new Set(e.compound_parts ?? []);
  for (const [phrase, tables] of Object.entries(e.hits))
    for (const t of tables)
      add(t, {
        kind: parts.has(phrase) ? "compound" : "phrase",
        text: phrase,
        // Before the halves were recorded (issue 34), an index without a semantic half could only hit by keyword.
        via: e.hit_sources?.[phrase]?.[t] ?? (semantic ? null : "keyword"),
        through: e.hit_keys?.[phrase]?.[t] ?? null,
      });
  const maxValueTables = e.params?.maxValueTables ?? Infinity;
  for (const [value, tables] of Object.entries(e.value_hits ?? {}))
    if (tables.length <= maxValueTables)
      for (const t of tables) add(t, { kind: "value", text: value, via: null, through: null });
  for (const t of e.named ?? []) add(t, { kind: "named", text: "", via: null, through: null });
  for (const t of e.bridged ?? []) add(t, { kind: "bridge", text: "", via: null, through: null });
  const names = databaseTables ?? [
    ...new Set([
      ...directives.irrelevant_tables,
      ...Object.values(e.hits).flat(),
      ...(e.named ?? []),
      ...(e.bridged ?? []),
    ]),
  ];
  return {
    strategy: e.strategy ?? directives.strategy,
    phraseSource: e.phrase_source ?? null,
    embedder: e.embedder ?? null,
    semantic,
    noEvidence: e.no_evidence === true,
    noEvidenceRule: e.params?.keepAllWithoutEvidence ?? null,
    tables: names
      .map((table) => ({
        table,
        flagged: flagged.has(table.toLowerCase()),
        reasons: reasons.get(table.toLowerCase()) ?? [],
      }))
      .sort((a, b) => Number(a.flagged) - Number(b.flagged) || a.table.localeCompare(b.table)),
  };
}
