/** Folds a name to the schema's spelling (SQLite identifiers are case-insensitive). */
export function foldTable(name: string, schemaTables?: readonly string[]): string {
  if (!schemaTables) return name;
  const lower = name.toLowerCase();
  return schemaTables.find((t) => t.toLowerCase() === lower) ?? name;
}
