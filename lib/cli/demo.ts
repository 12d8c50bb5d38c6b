import { parseArgs } from "node:util";
import { openStore } from "@/lib/db/store";
import { seedDemo } from "@/lib/demo/seed";

/** `metron demo [--force] [--json]`: seeds the simulated demo (once; --force seeds it again). */
export async function runDemoCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { json: { type: "boolean", default: false }, force: { type: "boolean", default: false } },
  });
  const sql = await openStore();
  try {
    const r = await seedDemo(sql, { force: values.force, log: values.json ? undefined : (s) => console.log(s) });
    if (values.json) console.log(JSON.stringify({ dataset: r.dataset, seeded: r.seeded, runs: r.runs }, null, 2));
    else
      console.log(
        r.seeded
          ? `simulated demo seeded: ${r.runs.length} runs`
          : `simulated demo already there (${r.runs.length} runs); --force seeds it again`,
      );
  } finally {
    await sql.close();
  }
  return 0;
}
