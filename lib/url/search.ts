/** URL state of the search page: a permalink to a search and its filters. */
import { createLoader, parseAsInteger, parseAsString } from "nuqs/server";

export const searchSearchParams = {
  q: parseAsString.withDefault(""),
  dataset: parseAsString,
  system: parseAsString,
  model: parseAsString,
  outcome: parseAsString,
  tool: parseAsString,
  role: parseAsString,
  label: parseAsString,
  page: parseAsInteger.withDefault(1),
};

export const loadSearchParams = createLoader(searchSearchParams);

export const SEARCH_PAGE_SIZE = 25;

export function searchPath(p: Partial<Record<keyof typeof searchSearchParams, string | number | null>>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(p))
    if (v !== null && v !== undefined && v !== "" && !(k === "page" && v === 1)) q.set(k, String(v));
  return `/search?${q.toString()}`;
}
