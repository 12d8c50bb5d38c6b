/**
 * A count with its noun in the right number, by the language's plural rules (`Intl.PluralRules`): "1 line",
 * "2 lines", "0 lines" (issue 30: "1 rows", "1 databases", "1 traces of 1 run"). Pure.
 */
const rules = new Intl.PluralRules("en-US");

export function count(n: number, one: string, other = `${one}s`): string {
  return `${n} ${rules.select(n) === "one" ? one : other}`;
}
