/** Directive strategies by variant: none, oracle, computed (docs/environment.md). */
import path from "node:path";
import { dataDir } from "@/lib/db/client";
import type { DatabaseInfo, QuestionInfo } from "../database-info";
import { computedStrategy, DEFAULT_PARAMS, type ComputedDeps, type ComputedParams } from "./computed";
import { indexCacheFor } from "./index-cache";
import { oracleDirectives } from "./oracle";
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
  const embed = options.deps?.embed;
  const index = indexCacheFor(
    options.indexDir ?? path.join(dataDir(), "indexes"),
    embed ? { name: options.deps?.embedderName ?? "embedder", embed } : undefined,
  );
  return computedStrategy(index, options.params ?? DEFAULT_PARAMS, options.deps)(question, database);
}
