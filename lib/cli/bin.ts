/** The compiled CLI's entry (scripts/build-cli.mjs bundles it into dist/cli; scripts/metron.mjs starts it). */
import { readFileSync } from "node:fs";
import { main } from "./main";

// The derived data this CLI computes ahead is stamped as the server built from the same sources stamps its own
// (scripts/code-stamp.mjs): the build wrote the stamp beside this file.
try {
  process.env.METRON_CODE_STAMP ??= readFileSync(new URL("./code-stamp", import.meta.url), "utf8").trim();
} catch {
  // not the compiled CLI (run from source): values are stamped "dev", as `next dev`'s are
}

process.exitCode = await main(process.argv.slice(2));
