/**
 * Per-model prices in USD per million tokens. List prices come from a maintained catalogue,
 * `@pydantic/genai-prices` (its bundled data: no network), which matches model names the way providers spell
 * them (dated snapshots, provider prefixes). A JSON file (METRON_PRICES) overrides or extends it:
 * { "<model prefix>": { "input": n, "cached_input": n, "output": n } }, matched by the longest listed prefix
 * of the model's name. A model neither knows gets no computed cost (shown as "no price"), never a guess.
 * Tiered prices (a higher rate past a context length) are taken at their base tier: traces sum tokens over
 * many calls, so the tier of each call is not known.
 */
import { calcPrice } from "@pydantic/genai-prices";

export interface ModelPrice {
  input: number;
  cached_input?: number;
  output: number;
  /** Where the price comes from, with its date: the catalogue's version or the override file. */
  source?: string;
}
export type PriceTable = Record<string, ModelPrice>;

/** The catalogue in use; its data's date is its release date (the bundled data is not updated at run time). */
export const PRICE_CATALOGUE = { name: "@pydantic/genai-prices", version: "0.1.8", released: "2026-09-23" };

const CATALOGUE_SOURCE = `${PRICE_CATALOGUE.name} ${PRICE_CATALOGUE.version} (list prices as of ${PRICE_CATALOGUE.released})`;

const base = (v: unknown): number | undefined =>
  typeof v === "number"
    ? v
    : v && typeof v === "object" && "base" in v
      ? Number((v as { base: number }).base)
      : undefined;

const catalogued = new Map<string, ModelPrice | null>();

/** The catalogue's list price of a model ("openai:gpt-5", "openai/gpt-5" and "gpt-5" alike); null when unlisted. */
export function cataloguePrice(model: string): ModelPrice | null {
  const hit = catalogued.get(model);
  if (hit !== undefined) return hit;
  const m = /^(openai|anthropic|google|mistral|groq|deepseek)[:/](.+)$/i.exec(model);
  const id = m ? m[2] : model;
  let price: ModelPrice | null = null;
  try {
    const r = calcPrice({ input_tokens: 1 }, id, m ? { providerId: m[1].toLowerCase() } : undefined);
    const input = base(r?.model_price.input_mtok);
    const output = base(r?.model_price.output_mtok);
    if (r && input !== undefined && output !== undefined) {
      const cached = base(r.model_price.cache_read_mtok);
      price = {
        input,
        output,
        ...(cached !== undefined ? { cached_input: cached } : {}),
        source: `${CATALOGUE_SOURCE}: ${r.provider.id} ${r.model.id}`,
      };
    }
  } catch {
    price = null;
  }
  catalogued.set(model, price);
  return price;
}

/** A model's price: the override table's longest matching prefix, else the catalogue's list price. */
export function priceOf(model: string, table: PriceTable = {}): ModelPrice | undefined {
  const name = model.toLowerCase().replace(/^(openai|anthropic)[/:]/, "");
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (
      (name === key || name.startsWith(key + "-") || name.startsWith(key + ".") || name.startsWith(key + "@")) &&
      (!best || key.length > best.length)
    )
      best = key;
  }
  return best ? table[best] : (cataloguePrice(model) ?? undefined);
}

/** Cost of a trace's tokens; cached input tokens are part of input tokens and billed at the cached rate. */
export function costOf(
  model: string,
  usage: { input: number; cached: number; output: number },
  table?: PriceTable,
): number | null {
  const p = priceOf(model, table);
  if (!p) return null;
  const cached = Math.min(usage.cached, usage.input);
  return ((usage.input - cached) * p.input + cached * (p.cached_input ?? p.input) + usage.output * p.output) / 1e6;
}
