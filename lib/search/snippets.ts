/**
 * Snippets for search hits (pure): the index keeps no copy of a document's text (issue 36), so a shown hit's text is
 * read again from its trace or step and its matches are marked here — the same tokens the index matched (letters,
 * digits and `_`; case and accents ignored), a phrase as consecutive tokens — in a window of about 14 words around
 * the first match. Also the words of a stored JSON value, as the indexers read them.
 */
import { MARK_END, MARK_START } from "./marks";

const TOKEN = /[\p{L}\p{N}_]+/gu;

/** A token as the index compares it: lower case, accents removed (FTS5's `remove_diacritics 2`). */
export function fold(token: string): string {
  return token.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

/** The words of a stored JSON value (strings, numbers, booleans, in document order), or the text when not JSON. */
export function textOf(value: string | null | undefined): string {
  if (value === null || value === undefined) return "";
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return value;
  }
  const atoms: string[] = [];
  const walk = (v: unknown) => {
    if (v === null || v === undefined) return;
    if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") atoms.push(String(v));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === "object") Object.values(v as object).forEach(walk);
  };
  walk(parsed);
  return atoms.join(" ");
}

/**
 * The text with its first match and what is around it, matches marked; the start of the text, unmarked, when none
 * of `phrases` (each a word or several) occurs in it.
 */
export function makeSnippet(text: string, phrases: readonly string[], words = 14): string {
  const tokens = [...text.matchAll(TOKEN)].map((m) => ({ at: m.index!, end: m.index! + m[0].length, key: fold(m[0]) }));
  const wanted = phrases.map((p) => [...p.matchAll(TOKEN)].map((m) => fold(m[0]))).filter((p) => p.length > 0);
  const marked = new Set<number>();
  for (let i = 0; i < tokens.length; i++)
    for (const p of wanted)
      if (p.every((w, j) => tokens[i + j]?.key === w)) for (let j = 0; j < p.length; j++) marked.add(i + j);
  if (!tokens.length) return text.slice(0, 200);
  const first = marked.size ? Math.min(...marked) : 0;
  const from = Math.max(0, Math.min(first - 4, tokens.length - words));
  const to = Math.min(tokens.length, from + words);
  let out = from > 0 ? "…" : "";
  let at = tokens[from].at;
  for (let i = from; i < to; i++) {
    const t = tokens[i];
    out += text.slice(at, t.at);
    out += marked.has(i) ? `${MARK_START}${text.slice(t.at, t.end)}${MARK_END}` : text.slice(t.at, t.end);
    at = t.end;
  }
  return to < tokens.length ? `${out}…` : out + text.slice(at);
}
