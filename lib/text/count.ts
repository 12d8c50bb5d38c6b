/**
 * A count with its noun in the right number, by the language's plural rules (`Intl.PluralRules`): "1 line",
 * "2 lines", "0 lines" (issue 30: "1 rows", "1 databases", "1 traces of 1 run"). Pure.
 */
const rules = new Intl.PluralRules("en-US");

export function count(n: number, one: string, other = `${one}s`): string {
  return `${n} ${rules.select(n) === "one" ? one : other}`;
}

/**
 * How an upload's questions were linked, in words, for the CLI and the upload page alike: linked by a method, and
 * not linked at all (kept under an `unlinked-…` id of their own) — two different things (issue 30: "2 by
 * unlinked"). Null for a part with nothing to say.
 */
export function describeLinks(links: Partial<Record<string, number>>): {
  linked: string | null;
  unlinked: string | null;
} {
  const linked = Object.entries(links).filter(([k, n]) => k !== "unlinked" && n);
  return {
    linked: linked.length ? `Questions linked: ${linked.map(([k, n]) => `${n} by ${k}`).join(", ")}` : null,
    unlinked: links.unlinked
      ? `${count(links.unlinked, "question")} not linked to a dataset question (kept under unlinked-… ids; a dataset and a question id link them)`
      : null,
  };
}
