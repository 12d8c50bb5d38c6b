/**
 * Server-side syntax highlighting with shiki: one highlighter per process (created once, languages loaded
 * once), and a small cache of highlighted snippets. Shiki escapes the code it highlights, so untrusted trace
 * content never reaches the page as HTML.
 */
import { positiveNumber } from "@/lib/config/env";
import { createHighlighter, type Highlighter } from "shiki";

export type CodeLang = "sql" | "json";

const THEME = "github-light";
const CACHE_LIMIT = 500;

const g = globalThis as unknown as {
  metronHighlighter?: Promise<Highlighter>;
  metronHighlightCache?: Map<string, string>;
};
const cache = (g.metronHighlightCache ??= new Map());

function highlighter(): Promise<Highlighter> {
  g.metronHighlighter ??= createHighlighter({ themes: [THEME], langs: ["sql", "json"] });
  return g.metronHighlighter;
}

/**
 * Makes the process's highlighter now (at server start), and highlights a query and a JSON value once with it (not
 * kept in the cache), so that the first page that highlights does not wait: a grammar's rules are compiled by its
 * first use, and the first SQL took 86 ms against 6 for the next.
 */
export async function warmHighlighter(): Promise<void> {
  const h = await highlighter();
  h.codeToHtml(
    "SELECT T1.name, count(*) AS n FROM a AS T1 JOIN b AS T2 ON T1.id = T2.a_id\nWHERE T2.year > 2014 AND T1.c = 'x' -- why\nGROUP BY T1.name ORDER BY n DESC LIMIT 10",
    {
      lang: "sql",
      theme: THEME,
    },
  );
  h.codeToHtml('{\n  "table": "a",\n  "rows": [[1, "b", null, true, 2.5]]\n}', { lang: "json", theme: THEME });
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Highlighted HTML of `code`. Text over `METRON_DISPLAY_MAX_CHARS` (default 100,000) is cut there, with a note and a
 * link to the whole text; over `METRON_HIGHLIGHT_MAX_CHARS` (default 20,000) it is shown plain with a note,
 * and lines over 2,000 characters or taking over 50 ms are left untokenised by shiki: highlighting runs on the
 * request thread, so its cost is bounded whatever a trace holds.
 */
export async function highlight(
  code: string,
  lang: CodeLang,
  /** Where the whole text can be read when it is longer than a page shows (`METRON_DISPLAY_MAX_CHARS`). */
  wholeTextHref?: string,
): Promise<string> {
  const shown = positiveNumber("METRON_DISPLAY_MAX_CHARS", 100_000);
  if (code.length > shown) {
    // A page carries a bounded piece of a huge text (twice: as HTML and in React's payload); the rest is a link away.
    const link = wholeTextHref ? `; <a class="underline" href="${escapeHtml(wholeTextHref)}">the whole text</a>` : "";
    return `<pre class="shiki" style="background-color:#fff"><code>${escapeHtml(code.slice(0, shown))}</code></pre><p class="px-2 pb-1 text-xs text-zinc-500" data-testid="text-cut">Showing the first ${shown.toLocaleString("en-US")} of ${code.length.toLocaleString("en-US")} characters, without highlighting (METRON_DISPLAY_MAX_CHARS)${link}.</p>`;
  }
  const max = positiveNumber("METRON_HIGHLIGHT_MAX_CHARS", 20_000);
  if (code.length > max) {
    return `<pre class="shiki" style="background-color:#fff"><code>${escapeHtml(code)}</code></pre><p class="px-2 pb-1 text-xs text-zinc-500">Shown without highlighting: ${code.length.toLocaleString("en-US")} characters is over the ${max.toLocaleString("en-US")} highlighted (METRON_HIGHLIGHT_MAX_CHARS).</p>`;
  }
  const key = `${lang}\u0000${code}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const html = (await highlighter()).codeToHtml(code, {
    lang,
    theme: THEME,
    tokenizeMaxLineLength: 2000,
    tokenizeTimeLimit: 50,
  });
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
