import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadPrices } from "@/lib/ingest/prices-file";
import { costOf, PRICE_CATALOGUE, priceOf } from "./prices";

describe("prices from the catalogue, with METRON_PRICES overriding", () => {
  it("reads list prices from the maintained catalogue, naming its source and date, whatever the provider prefix", () => {
    const p = priceOf("claude-haiku-4-5");
    expect(p).toMatchObject({ input: 1, output: 5, cached_input: 0.1 });
    expect(p!.source).toContain(`${PRICE_CATALOGUE.name} ${PRICE_CATALOGUE.version}`);
    expect(p!.source).toContain(PRICE_CATALOGUE.released);
    expect(priceOf("openai:gpt-5-mini")).toMatchObject({ input: 0.25, output: 2 });
    expect(priceOf("gpt-4o-2024-08-06")).toMatchObject({ input: 2.5, output: 10 });
    // Tiered prices are taken at their base tier.
    expect(priceOf("claude-sonnet-4-5")).toMatchObject({ input: 3, output: 15 });
    expect(priceOf("my-local-llama")).toBeUndefined();
  });

  it("the date shown is the one of the installed catalogue", () => {
    const pkg = JSON.parse(readFileSync(path.resolve("node_modules/@pydantic/genai-prices/package.json"), "utf8"));
    expect(pkg.version).toBe(PRICE_CATALOGUE.version);
  });

  it("an override file wins over the catalogue and says so", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "prices-"));
    const file = path.join(dir, "prices.json");
    writeFileSync(file, JSON.stringify({ "gpt-5-mini": { input: 1, output: 1 }, "my-local": { input: 0, output: 0 } }));
    const table = loadPrices(file);
    expect(priceOf("gpt-5-mini-2025-08-07", table)).toMatchObject({ input: 1, output: 1 });
    expect(priceOf("gpt-5-mini", table)!.source).toContain("METRON_PRICES");
    expect(costOf("my-local-llama", { input: 1e6, cached: 0, output: 1e6 }, table)).toBe(0);
    expect(priceOf("gpt-5", table)!.source).toContain(PRICE_CATALOGUE.name); // not overridden
  });
});
