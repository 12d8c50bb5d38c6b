/**
 * The model-backed parts of computed directives, when configured: a cheap model that turns the question and
 * evidence into column-like search phrases (METRON_DIRECTIVE_MODEL=provider:model), and an embedding model for the
 * semantic index (METRON_EMBEDDING_MODEL=openai:text-embedding-3-large or compatible:<model>). Without them the
 * computed strategy uses its keyword extractor and BM25 alone.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { embedMany, generateText } from "ai";
import type { ComputedDeps } from "@/lib/environment/directives/computed";
import { languageModel, type ProviderId } from "./providers";

export const PHRASE_PROMPT = `You help find the database columns a question needs. From the question and its evidence, write up to 8 short search phrases that look like column names or column descriptions: the measures, filters, categories and units the answer depends on, the most important first.
Do not write SQL words (select, count, join, where, group by) or filler. Answer with a raw JSON array of strings only, no prose, no code fence.`;

/** Parses the model's answer: a JSON array of strings, tolerating a code fence around it. */
export function parsePhrases(text: string): string[] {
  const body = text
    .trim()
    .replace(/^```(?:json)?\s*/i, "")
    .replace(/```$/, "")
    .trim();
  const start = body.indexOf("[");
  const end = body.lastIndexOf("]");
  if (start < 0 || end < start)
    throw new Error(`the phrase model did not answer with a JSON array: ${text.slice(0, 200)}`);
  const value = JSON.parse(body.slice(start, end + 1));
  if (!Array.isArray(value)) throw new Error("the phrase model's answer is not an array");
  return value
    .filter((v): v is string => typeof v === "string" && v.trim() !== "")
    .map((v) => v.trim())
    .slice(0, 8);
}

function split(spec: string): [ProviderId, string] {
  const i = spec.indexOf(":");
  if (i < 0) throw new Error(`expected provider:model, got "${spec}"`);
  return [spec.slice(0, i) as ProviderId, spec.slice(i + 1)];
}

export function directiveDeps(env: NodeJS.ProcessEnv = process.env): ComputedDeps & { embedderName?: string } {
  const deps: ComputedDeps & { embedderName?: string } = {};
  if (env.METRON_DIRECTIVE_MODEL) {
    const [provider, model] = split(env.METRON_DIRECTIVE_MODEL);
    if (provider === "simulated") throw new Error("METRON_DIRECTIVE_MODEL cannot be the simulated provider");
    const lm = languageModel(provider, model, env);
    deps.phrases = async (question, evidence) => {
      const { text } = await generateText({
        model: lm,
        system: PHRASE_PROMPT,
        prompt: `Question: ${question}${evidence ? `\nEvidence: ${evidence}` : ""}`,
        maxOutputTokens: 200,
        maxRetries: 1,
      });
      return parsePhrases(text);
    };
  }
  if (env.METRON_EMBEDDING_MODEL) {
    const [provider, model] = split(env.METRON_EMBEDDING_MODEL);
    const em =
      provider === "openai"
        ? createOpenAI({ apiKey: env.OPENAI_API_KEY }).embedding(model)
        : provider === "compatible" && env.METRON_OPENAI_COMPATIBLE_URL
          ? createOpenAICompatible({
              name: "compatible",
              baseURL: env.METRON_OPENAI_COMPATIBLE_URL,
              apiKey: env.METRON_OPENAI_COMPATIBLE_KEY,
            }).embeddingModel(model)
          : null;
    if (!em)
      throw new Error(
        `METRON_EMBEDDING_MODEL=${env.METRON_EMBEDDING_MODEL}: use openai:<model> or compatible:<model> with METRON_OPENAI_COMPATIBLE_URL`,
      );
    deps.embed = async (texts) => (await embedMany({ model: em, values: texts, maxRetries: 1 })).embeddings;
    deps.embedderName = env.METRON_EMBEDDING_MODEL;
  }
  return deps;
}
