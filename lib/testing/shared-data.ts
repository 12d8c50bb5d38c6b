import { existsSync } from "node:fs";
import path from "node:path";

/** The real benchmark data beside the project (`../shared/data`); tests read it in place and never copy it. */
export function sharedData(...parts: string[]): string {
  const root = process.env.METRON_SHARED_DATA ?? path.resolve(import.meta.dirname, "..", "..", "..", "shared", "data");
  const file = path.join(root, ...parts);
  if (!existsSync(file))
    throw new Error(`real test data missing: ${file} (set METRON_SHARED_DATA to the shared/data folder)`);
  return file;
}
