/**
 * The question inside an agent's first user message (pure). Harnesses wrap the benchmark question in instructions
 * ("You are a database expert…\n\nQuestion: …", LiveSQLBench's "Database: …\nTask ID: …\n\nUser Query:\n…"); a page
 * heading is the question, not the prompt. A labelled question is taken up to the end of its paragraph; without a
 * label the text is kept whole (and pages collapse it when long). Nothing is guessed beyond the label.
 */
const LABEL =
  /(?:^|\n)[ \t]*(?:#+[ \t]*)?(?:user query|question|nl question|natural language question|task|user question)[ \t]*:[ \t]*\n?/i;

export function questionOf(text: string): { question: string; fromLabel: boolean } {
  const m = LABEL.exec(text);
  if (!m) return { question: text.trim(), fromLabel: false };
  const rest = text.slice(m.index + m[0].length);
  const end = rest.search(/\n[ \t]*\n/);
  const question = (end === -1 ? rest : rest.slice(0, end)).trim();
  return question ? { question, fromLabel: true } : { question: text.trim(), fromLabel: false };
}
