import { parseArgs } from "node:util";
import { openDb } from "@/lib/db/client";
import { seedDemo } from "@/lib/demo/seed";

/** `metron demo [--force] [--json]`: seeds the simulated demo (once; --force seeds it again). */
export async function runDemoCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { json: { type: "boolean", default: false }, force: { type: "boolean", default: false } },
  });
  const db = openDb();
  try {
    const r = await seedDemo(db, { force: values.force, log: values.json ? undefined : (s) => console.log(s) });
    if (values.json) console.log(JSON.stringify({ dataset: r.dataset, seeded: r.seeded, runs: r.runs }, null, 2));
    else
      console.log(
        r.seeded
          ? `simulated demo seeded: ${r.runs.length} runs`
          : `simulated demo already there (${r.runs.length} runs); --force seeds it again`,
      );
  } finally {
    db.$client.close();
  }
  return 0;
}
