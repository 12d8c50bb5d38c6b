/**
 * Final SQL as agents write it (DOMAIN.md): in a Markdown fence (```sql, ```SQLite, a bare ```), or after a
 * label (`SQL:`, `Answer:`, `Final SQL:`). Metron measures and evaluates the SQL inside and keeps the raw text
 * in the trace; `extracted` says that it did. Linear in the text's length. Pure.
 */
export interface ExtractedSql {
  sql: string;
  /** What was stripped, when anything was: shown as a warning. */
  extracted: null | "fence" | "label";
}

const FENCE = /```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\r?\n?([\s\S]*?)```/g;
const LABEL = /^\s*(?:final\s+sql|final\s+query|final\s+answer|sql\s+query|sqlite|sql|answer|query)\s*:\s*/i;

export function extractSql(raw: string): ExtractedSql {
  if (raw.includes("```")) {
    let best: string | undefined;
    let bestIsSql = false;
    for (const m of raw.matchAll(FENCE)) {
      const isSql = /^(?:sql|sqlite)$/i.test(m[1]);
      // The last SQL-tagged fence wins (agents restate their answer last); an untagged one only if none is tagged.
      if (isSql || !bestIsSql) {
        best = m[2];
        bestIsSql = isSql;
      }
    }
    if (best === undefined) {
      // An unclosed fence: everything after its opening line.
      const open = /```[ \t]*[A-Za-z0-9_+-]*[ \t]*\r?\n?/.exec(raw);
      if (open) best = raw.slice(open.index + open[0].length);
    }
    if (best !== undefined && best.trim()) return { sql: best.trim(), extracted: "fence" };
  }
  const label = LABEL.exec(raw);
  if (label) {
    const rest = raw.slice(label[0].length).trim();
    if (rest) return { sql: rest, extracted: "label" };
  }
  return { sql: raw, extracted: null };
}

export function describeExtraction(e: ExtractedSql["extracted"]): string | null {
  if (e === "fence") return "the final SQL was extracted from a Markdown code fence";
  if (e === "label") return "the final SQL was extracted after a leading label (such as SQL:)";
  return null;
}
