/** SQLite folds the case of identifiers in ASCII only: `KONZERT` is `konzert`, `SÄNGER` is not `sänger`. */
export const asciiLower = (name: string) => name.replace(/[A-Z]+/g, (c) => c.toLowerCase());

/** Folds a name to the schema's spelling, as SQLite matches identifiers (case-insensitive in ASCII only, issue 30). */
export function foldTable(name: string, schemaTables?: readonly string[]): string {
  if (!schemaTables) return name;
  const lower = asciiLower(name);
  return schemaTables.find((t) => asciiLower(t) === lower) ?? name;
}
