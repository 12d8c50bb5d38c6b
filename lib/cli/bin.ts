/** The compiled CLI's entry (scripts/build-cli.mjs bundles it into dist/cli; scripts/metron.mjs starts it). */
import { main } from "./main";

process.exitCode = await main(process.argv.slice(2));
