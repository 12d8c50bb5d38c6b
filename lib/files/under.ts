/**
 * The one way a name taken from a file's contents (a `db_id`, a table name, a question id) reaches the file system
 * (issue 28): it must be one path segment, and the path it makes must stay under its folder. Anything else is
 * refused with an error that names the field and the value, so an uploaded tables.json cannot point an import at
 * `../../` or an absolute path.
 */
import path from "node:path";

export class UnsafeNameError extends Error {}

/**
 * `folder/<name><suffix>`, or an `UnsafeNameError` naming `field` when `name` is not a single segment under it
 * (empty, `.` or `..`, a separator, a NUL, not a string).
 */
export function fileUnder(folder: string, name: unknown, suffix = "", field = "name"): string {
  const shown = JSON.stringify(name)?.slice(0, 120) ?? String(name);
  if (typeof name !== "string" || name === "" || name === "." || name === "..")
    throw new UnsafeNameError(`${field} ${shown} is not a name a file can have`);
  if (/[/\\\0]/.test(name) || path.isAbsolute(name))
    throw new UnsafeNameError(`${field} ${shown} holds a path separator: it must be a plain name, not a path`);
  const root = path.resolve(folder);
  const file = path.resolve(root, name + suffix);
  if (path.dirname(file) !== root) throw new UnsafeNameError(`${field} ${shown} leads outside ${root}`);
  return file;
}
