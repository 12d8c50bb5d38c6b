/** The price table: defaults merged with the JSON file named by METRON_PRICES (docs/metrics.md). */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { DEFAULT_PRICES, type PriceTable } from "@/lib/metrics/prices";

const priceFile = z.record(
  z.string(),
  z.object({
    input: z.number().nonnegative(),
    cached_input: z.number().nonnegative().optional(),
    output: z.number().nonnegative(),
  }),
);

export function loadPrices(file = process.env.METRON_PRICES): PriceTable {
  if (!file) return DEFAULT_PRICES;
  const parsed = priceFile.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success)
    throw new Error(
      `METRON_PRICES (${file}): ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  return {
    ...DEFAULT_PRICES,
    ...Object.fromEntries(Object.entries(parsed.data).map(([k, v]) => [k.toLowerCase(), v])),
  };
}
