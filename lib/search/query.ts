/**
 * The search language: words and "quoted phrases" searched in trace content (FTS5), and structured terms that
 * filter — `tool:describe_table`, `table:frpm`, `role:schema_exploration` (a step's), and `outcome:wrong`,
 * `system:`, `model:`, `run:`, `dataset:`, `db:`, `label:` (a trace's). `-word` excludes a word. A value with
 * spaces is quoted: `system:"No Directives"`. Pure: no store, no framework.
 */

import { exOutcomes } from "@/lib/eval/outcomes";

export const STEP_TERMS = ["tool", "table", "role"] as const;
export const TRACE_TERMS = [
  "outcome",
  "system",
  "model",
  "run",
  "dataset",
  "db",
  "label",
  "question",
  "score",
] as const;

/** `score:NAME`, `score:NAME>0.5` (>, >=, <, <=, =, !=), `score:NAME=true`, `score:NAME=category`. */
export const SCORE_TERM = /^([A-Za-z0-9_.:-]+?)(?:(>=|<=|!=|=|>|<)(.+))?$/;

export interface ScoreTerm {
  name: string;
  op: ">=" | "<=" | "!=" | "=" | ">" | "<" | null;
  /** A number, a boolean (true/false), or a category. */
  value: number | boolean | string | null;
}

export function parseScoreTerm(v: string): ScoreTerm | null {
  const m = SCORE_TERM.exec(v);
  if (!m) return null;
  const [, name, op, raw] = m;
  if (!op) return { name, op: null, value: null };
  const value = raw === "true" || raw === "false" ? raw === "true" : Number.isFinite(Number(raw)) ? Number(raw) : raw;
  if (typeof value !== "number" && op !== "=" && op !== "!=") return null;
  return { name, op: op as ScoreTerm["op"], value };
}
export type TermKey = (typeof STEP_TERMS)[number] | (typeof TRACE_TERMS)[number];

/** `outcome:` values: effective correctness, or an EX outcome by name. */
export const OUTCOME_VALUES = ["right", "wrong", "unjudged", ...exOutcomes] as const;

export interface ParsedQuery {
  /** Words and phrases, as an FTS5 expression (AND of each; NOT for excluded ones); null when none. */
  match: string | null;
  /** The words and phrases themselves (for highlighting and display). */
  words: string[];
  terms: { key: TermKey; value: string }[];
  /** Terms that were not understood, said back to the user. */
  unknown: string[];
}

const TOKEN = /(-?)(?:([a-z]+):)?(?:"([^"]*)"|(\S+))/gi;

/** An FTS5 string literal: double quotes doubled, so user text is never FTS syntax. */
const literal = (s: string) => `"${s.replace(/"/g, '""')}"`;

export function parseQuery(q: string): ParsedQuery {
  const words: string[] = [];
  const excluded: string[] = [];
  const terms: ParsedQuery["terms"] = [];
  const unknown: string[] = [];
  for (const m of q.matchAll(TOKEN)) {
    const [, minus, key, quoted, bare] = m;
    const value = (quoted ?? bare ?? "").trim();
    if (!value) continue;
    if (key) {
      const k = key.toLowerCase();
      if ((STEP_TERMS as readonly string[]).includes(k) || (TRACE_TERMS as readonly string[]).includes(k)) {
        if (k === "outcome" && !(OUTCOME_VALUES as readonly string[]).includes(value.toLowerCase()))
          unknown.push(`${k}:${value} (outcome is one of ${OUTCOME_VALUES.join(", ")})`);
        else if (k === "score" && !parseScoreTerm(value))
          unknown.push(`score:${value} (score:NAME, score:NAME>0.5, score:NAME=true, score:NAME=category)`);
        else terms.push({ key: k as TermKey, value: k === "outcome" ? value.toLowerCase() : value });
        continue;
      }
      unknown.push(`${key}: (known terms: ${[...STEP_TERMS, ...TRACE_TERMS].join(", ")})`);
      continue;
    }
    // A term with nothing after its colon ("tool:", "tool: describe_table"): said, not searched as the word "tool".
    const bareKey = /^([a-z]+):$/i.exec(value)?.[1]?.toLowerCase();
    if (
      bareKey &&
      ((STEP_TERMS as readonly string[]).includes(bareKey) || (TRACE_TERMS as readonly string[]).includes(bareKey))
    ) {
      unknown.push(`${value} needs its value right after the colon, without a space (${bareKey}:VALUE)`);
      continue;
    }
    // Words: FTS5 tokens are letters, digits and underscores; a word with other characters is searched as a phrase.
    (minus ? excluded : words).push(value);
  }
  if (!words.length && excluded.length) unknown.push(`-${excluded[0]}: an excluded word needs a word to search`);
  const positive = words.map(literal);
  const match = positive.length
    ? [positive.join(" AND "), ...excluded.map((w) => `NOT ${literal(w)}`)].join(" ")
    : null;
  return { match, words, terms, unknown };
}

/** Back to text (for links that add a term). */
export function withTerm(q: string, key: TermKey, value: string): string {
  const v = /\s/.test(value) ? `"${value}"` : value;
  return `${q.trim()} ${key}:${v}`.trim();
}
