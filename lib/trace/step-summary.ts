/** One-line summaries of a step for the timeline (pure): the SQL, the table, or the arguments as compact JSON. */
import { sqlOfArgs } from "./tool-names";

const MAX = 160;

function clip(text: string, max = MAX): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** `argsJson` is the stored JSON text of the arguments (null when there were none). */
export function summarizeArgs(argsJson: string | null): string {
  if (argsJson === null) return "";
  let args: unknown;
  try {
    args = JSON.parse(argsJson);
  } catch {
    return clip(argsJson);
  }
  const sql = sqlOfArgs(args);
  if (sql) return clip(sql);
  if (args && typeof args === "object" && !Array.isArray(args)) {
    const entries = Object.entries(args as Record<string, unknown>);
    if (entries.length === 0) return "";
    if (entries.length === 1 && typeof entries[0][1] === "string") return clip(entries[0][1] as string);
    return clip(entries.map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join(", "));
  }
  return clip(typeof args === "string" ? args : JSON.stringify(args));
}

export function summarizeContent(content: string | null): string {
  return content ? clip(content, 200) : "";
}
