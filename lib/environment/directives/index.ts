/** Directive strategies by variant: none, oracle, computed (docs/environment.md). */
import path from "node:path";
import { dataDir } from "@/lib/db/client";
import type { DatabaseInfo, QuestionInfo } from "../database-info";
import { computedStrategy, DEFAULT_PARAMS, type ComputedDeps, type ComputedParams } from "./computed";
import { indexCacheFor } from "./index-cache";
import { oracleDirectives } from "./oracle";
import { shippedEmbedder } from "./word-vectors";
import type { DirectiveResult, Variant } from "./types";

export { SYSTEM_OF, variants, type Variant } from "./types";

export interface DirectiveOptions {
  params?: ComputedParams;
  deps?: ComputedDeps & { embedderName?: string };
  indexDir?: string;
}

export async function directivesFor(
  variant: Variant,
  question: QuestionInfo,
  database: DatabaseInfo,
  options: DirectiveOptions = {},
): Promise<DirectiveResult | null> {
  if (variant === "none") return null;
  if (variant === "oracle") return oracleDirectives(question, database);
  // The shipped defaults leave the semantic half out (chosen without a model, docs/environment.md); a configured
  // embedding model is there to be used, so without explicit parameters it turns the semantic half on.
  const params = options.params ?? (options.deps?.embed ? { ...DEFAULT_PARAMS, semantic: true } : DEFAULT_PARAMS);
  const indexDir = options.indexDir ?? path.join(dataDir(), "indexes");
  // The semantic half: the configured embedding model when there is one, else the word vectors shipped in the
  // package (none when the parameters leave the semantic half out, or METRON_WORD_VECTORS=off).
  const embedder = options.deps?.embed
    ? { name: options.deps.embedderName ?? "embedder", embed: options.deps.embed }
    : params.semantic && process.env.METRON_WORD_VECTORS !== "off"
      ? shippedEmbedder(indexDir)
      : undefined;
  const deps = embedder ? { ...options.deps, embed: embedder.embed, embedderName: embedder.name } : options.deps;
  return computedStrategy(indexCacheFor(indexDir, embedder), params, deps)(question, database);
}
