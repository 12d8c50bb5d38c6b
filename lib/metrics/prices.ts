/**
 * Per-model prices in USD per million tokens. Defaults are list prices as published by the providers for
 * the models named; a model not listed gets no computed cost (shown as "no price"), never a guess.
 * Override or extend with a JSON file (METRON_PRICES): { "<model prefix>": { "input": n, "cached_input": n, "output": n } }.
 * A model matches the longest listed prefix of its name (so "gpt-4o-2024-08-06" uses "gpt-4o").
 */
export interface ModelPrice {
  input: number;
  cached_input?: number;
  output: number;
}
export type PriceTable = Record<string, ModelPrice>;

export const DEFAULT_PRICES: PriceTable = {
  "gpt-4o": { input: 2.5, cached_input: 1.25, output: 10 },
  "gpt-4o-mini": { input: 0.15, cached_input: 0.075, output: 0.6 },
  "gpt-4.1": { input: 2, cached_input: 0.5, output: 8 },
  "gpt-4.1-mini": { input: 0.4, cached_input: 0.1, output: 1.6 },
  "gpt-5": { input: 1.25, cached_input: 0.125, output: 10 },
  "gpt-5-mini": { input: 0.25, cached_input: 0.025, output: 2 },
  "claude-3-7-sonnet": { input: 3, cached_input: 0.3, output: 15 },
  "claude-sonnet-4": { input: 3, cached_input: 0.3, output: 15 },
  "claude-sonnet-4-5": { input: 3, cached_input: 0.3, output: 15 },
};

export function priceOf(model: string, table: PriceTable = DEFAULT_PRICES): ModelPrice | undefined {
  const name = model.toLowerCase().replace(/^(openai|anthropic)\//, "");
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (
      (name === key || name.startsWith(key + "-") || name.startsWith(key + ".") || name.startsWith(key + "@")) &&
      (!best || key.length > best.length)
    )
      best = key;
  }
  return best ? table[best] : undefined;
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
