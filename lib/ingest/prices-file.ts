/** The override table: the JSON file named by METRON_PRICES (docs/metrics.md); the catalogue answers the rest. */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { statSync } from "node:fs";
import type { PriceTable } from "@/lib/metrics/prices";

const priceFile = z.record(
  z.string(),
  z.object({
    input: z.number().nonnegative(),
    cached_input: z.number().nonnegative().optional(),
    output: z.number().nonnegative(),
  }),
);

export function loadPrices(file = process.env.METRON_PRICES): PriceTable {
  if (!file) return {};
  const parsed = priceFile.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success)
    throw new Error(
      `METRON_PRICES (${file}): ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  const source = `METRON_PRICES (${file}, ${statSync(file).mtime.toISOString().slice(0, 10)})`;
  return Object.fromEntries(Object.entries(parsed.data).map(([k, v]) => [k.toLowerCase(), { ...v, source }]));
}
