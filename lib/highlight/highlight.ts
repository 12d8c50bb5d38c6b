/**
 * Server-side syntax highlighting with shiki: one highlighter per process (created once, languages loaded
 * once), and a small cache of highlighted snippets. Shiki escapes the code it highlights, so untrusted trace
 * content never reaches the page as HTML.
 */
import { createHighlighter, type Highlighter } from "shiki";

export type CodeLang = "sql" | "json";

const THEME = "github-light";
const CACHE_LIMIT = 500;

const g = globalThis as unknown as { metronHighlighter?: Promise<Highlighter>; metronHighlightCache?: Map<string, string> };
const cache = (g.metronHighlightCache ??= new Map());

function highlighter(): Promise<Highlighter> {
  g.metronHighlighter ??= createHighlighter({ themes: [THEME], langs: ["sql", "json"] });
  return g.metronHighlighter;
}

export async function highlight(code: string, lang: CodeLang): Promise<string> {
  const key = `${lang}\u0000${code}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const html = (await highlighter()).codeToHtml(code, { lang, theme: THEME });
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, html);
  return html;
}

/** Pretty JSON when the text is JSON, else undefined. */
export function prettyJson(text: string): string | undefined {
  try {
    const value = JSON.parse(text);
    return typeof value === "object" && value !== null ? JSON.stringify(value, null, 2) : undefined;
  } catch {
    return undefined;
  }
}
