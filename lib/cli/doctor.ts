/** `metron doctor`: is the store usable? Prints what it finds and what to do; exit code 1 on a problem. */
import { parseArgs } from "node:util";
import { checkStore } from "@/lib/db/health";

export async function runDoctorCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { json: { type: "boolean", default: false } } });
  const health = await checkStore({ pages: true });
  if (values.json) console.log(JSON.stringify(health, null, 2));
  else if (health.ok)
    console.log(
      `store: ${health.where} (${health.engine}): usable${health.pagesChecked ? ", every page checked (quick_check ok)" : ""}`,
    );
  else console.log(`store: ${health.where} (${health.engine}): ${health.problem}\nwhat to do: ${health.advice}`);
  return health.ok ? 0 : 1;
}
