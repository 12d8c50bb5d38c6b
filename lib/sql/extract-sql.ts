/**
 * Final SQL as agents write it (DOMAIN.md): in a Markdown fence (```sql, ```SQLite, a bare ```, or `~~~`), or after
 * a label (`SQL:`, `Answer:`, `Final SQL:`). Metron measures and evaluates the SQL inside — the one extractor both
 * use — and keeps the raw text in the trace; `extracted` says that it did. Linear in the text's length. Pure.
 *
 * The wrapping forms of real predictions (issue 30): SQL followed by a stray closing fence (the fence is dropped);
 * SQL followed by a fence of prose (the SQL before it is the answer, not the prose); a fence inside a fence (the
 * innermost SQL); `~~~` fences. Of several fences the last SQL-tagged one wins (agents restate their answer last);
 * an untagged one counts only when it reads as SQL.
 */
export interface ExtractedSql {
  sql: string;
  /** What was stripped, when anything was: shown as a warning. */
  extracted: null | "fence" | "label";
}

const FENCE = /(```|~~~)[ \t]*([\w.+-]*)[ \t]*\r?\n?([\s\S]*?)\1/g;
const MARKER = /(?:```|~~~)[ \t]*[\w.+-]*[ \t]*/g;
const LABEL = /^\s*(?:final\s+sql|final\s+query|final\s+answer|sql\s+query|sqlite|sql|answer|query)\s*:\s*/i;
/** Text that starts (after comments) as a statement does. */
const READS_AS_SQL =
  /^\s*(?:(?:--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)\s*)*(?:select|with|values|insert|update|delete|replace|create|drop|alter|pragma|explain)\b/i;

export const readsAsSql = (text: string) => READS_AS_SQL.test(text);

/** The SQL inside fenced text, or undefined when no fence holds SQL. */
function fenced(raw: string, depth = 0): string | undefined {
  let best: string | undefined;
  let bestIsSql = false;
  for (const m of raw.matchAll(FENCE)) {
    const body = m[3];
    // A fence inside the fence: the innermost SQL.
    const inner = depth < 3 && /```|~~~/.test(body) ? fenced(body, depth + 1) : undefined;
    const content = (inner ?? body).trim();
    const tagged = /(?:^|\.)(?:sql|sqlite|postgresql|mysql)$/i.test(m[2]);
    if (!content || !(tagged || readsAsSql(content))) continue;
    if (tagged || !bestIsSql) {
      best = content;
      bestIsSql = tagged;
    }
  }
  return best;
}

export function extractSql(raw: string): ExtractedSql {
  if (raw.includes("```") || raw.includes("~~~")) {
    const inside = fenced(raw);
    if (inside) return { sql: inside, extracted: "fence" };
    // No fence holds SQL: the SQL is the text outside the markers (a stray closing fence after the SQL, an unclosed
    // opening one before it, a fence of prose after it), up to the first fence that holds something else.
    const parts = raw.split(/((?:```|~~~)[ \t]*[\w.+-]*[ \t]*\r?\n?)/);
    const texts = parts.filter((_, i) => i % 2 === 0).map((t) => t.trim());
    const sql = texts.find((t) => t && readsAsSql(t));
    if (sql) return { sql: sql.replace(MARKER, "").trim(), extracted: "fence" };
  }
  const label = LABEL.exec(raw);
  if (label) {
    const rest = raw.slice(label[0].length).trim();
    if (rest) return { sql: extractSql(rest).sql, extracted: "label" };
  }
  return { sql: raw, extracted: null };
}

export function describeExtraction(e: ExtractedSql["extracted"]): string | null {
  if (e === "fence") return "the final SQL was extracted from a Markdown code fence";
  if (e === "label") return "the final SQL was extracted after a leading label (such as SQL:)";
  return null;
}
