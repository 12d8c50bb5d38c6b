// What the store's derived data is keyed by besides the runs' versions (lib/db/queries/run-cache.ts): the code that
// computes it. The CLI (scripts/build-cli.mjs) and the server (next.config.ts, the build's id) are built from the
// same sources, lib/ and its packages, so both stamp the values they compute alike: what `metron ingest` computed
// ahead, the server reads, and a new build of other code computes anew.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** The sources of the CLI and of what the pages derive: lib/ (tests aside), the lock file and tsconfig.json. */
export function libSources(root) {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (/\.(ts|tsx|json|mjs)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) files.push(p);
    }
  };
  walk(path.join(root, "lib"));
  files.sort();
  return [...files, path.join(root, "package-lock.json"), path.join(root, "tsconfig.json")];
}

/** SHA-256 of those files' paths (from `root`) and contents, 20 hex digits. */
export function codeStamp(root) {
  const hash = createHash("sha256");
  for (const f of libSources(root))
    hash
      .update(`${path.relative(root, f)}\0`)
      .update(readFileSync(f))
      .update("\0");
  return hash.digest("hex").slice(0, 20);
}
