/**
 * Linking a foreign trace to its benchmark question (pure). A general agent's session does not know the question
 * id: it comes from a field of the file, an id given at upload, or the first user message matched against the
 * dataset's question texts — exactly, then normalised (case, white space, punctuation), then as the one question
 * whose normalised text the message contains. The method and the matched text are kept in the trace's meta so the
 * link can be reviewed.
 */
import { createHash } from "node:crypto";

export interface QuestionText {
  id: string;
  text: string;
}

export type LinkMethod = "field" | "given" | "exact" | "normalized" | "contained" | "unlinked";

export function normalizeText(s: string): string {
  return s
    .toLowerCase()
    .normalize("NFKC")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

export function linkQuestion(
  field: string | undefined,
  message: string | undefined,
  given: string | undefined,
  questions: QuestionText[],
  /**
   * What identifies the trace when it carries no question text (its session, its content): traces without text
   * then get ids of their own, instead of all sharing the hash of the empty string (issue 29).
   */
  identity?: string,
): { id: string; method: LinkMethod; matched?: string } {
  if (field) return { id: field, method: "field" };
  if (given) return { id: given, method: "given" };
  if (message && questions.length) {
    const exact = questions.find((q) => q.text === message.trim());
    if (exact) return { id: exact.id, method: "exact", matched: exact.text };
    const m = normalizeText(message);
    const normalized = questions.find((q) => normalizeText(q.text) === m);
    if (normalized) return { id: normalized.id, method: "normalized", matched: normalized.text };
    const contained = questions.filter((q) => q.text.length >= 12 && m.includes(normalizeText(q.text)));
    if (contained.length) {
      // The longest contained question: a shorter one may be a prefix of it.
      const best = contained.sort((a, b) => b.text.length - a.text.length)[0];
      if (contained.filter((q) => normalizeText(q.text) === normalizeText(best.text)).length === 1)
        return { id: best.id, method: "contained", matched: best.text };
    }
  }
  return {
    id: `unlinked-${createHash("sha256")
      .update(message?.trim() ? message : identity ? `trace:${identity}` : "")
      .digest("hex")
      .slice(0, 10)}`,
    method: "unlinked",
  };
}
