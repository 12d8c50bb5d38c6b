/**
 * The preset taxonomy of text-to-SQL failure causes (after the error analyses of BIRD, Spider and their agents),
 * with the number key that sets each on the question page. A run can add causes of its own; anything else is a
 * free tag. Pure: no store.
 */
export const PRESET_CAUSES = [
  { key: "1", label: "wrong table", group: "schema linking" },
  { key: "2", label: "extra table", group: "schema linking" },
  { key: "3", label: "wrong column", group: "schema linking" },
  { key: "4", label: "join", group: "query" },
  { key: "5", label: "filter or value", group: "query" },
  { key: "6", label: "aggregation or grouping", group: "query" },
  { key: "7", label: "ordering or limit", group: "query" },
  { key: "8", label: "nested query", group: "query" },
  { key: "9", label: "gold is wrong", group: "benchmark" },
  { key: "0", label: "ambiguous question", group: "benchmark" },
  { key: "o", label: "other", group: "other" },
] as const;

export const PRESET_LABELS: string[] = PRESET_CAUSES.map((c) => c.label);

/** A label as stored: trimmed, inner spaces collapsed, at most 80 characters, not empty. */
export function cleanLabel(label: string): string | null {
  const clean = label.trim().replace(/\s+/g, " ").slice(0, 80);
  return clean || null;
}
