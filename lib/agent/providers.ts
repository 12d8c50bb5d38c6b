/**
 * Model providers, configured on the server from environment variables; keys never leave the server and are
 * never written into traces. The simulated provider is always available (lib/agent/simulated.ts).
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";

export const providerIds = ["simulated", "openai", "anthropic", "compatible"] as const;
export type ProviderId = (typeof providerIds)[number];

export interface ProviderInfo {
  id: ProviderId;
  label: string;
  available: boolean;
  models: string[];
  /** How to enable it, for the settings page. */
  enable: string;
}

export const SIMULATED_MODELS = ["sim-careful", "sim-hasty"];

const list = (v: string | undefined, fallback: string[]) =>
  v
    ? v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : fallback;

export function listProviders(env: NodeJS.ProcessEnv = process.env): ProviderInfo[] {
  return [
    {
      id: "simulated",
      label: "Simulated (deterministic, no model)",
      available: true,
      models: SIMULATED_MODELS,
      enable: "always available",
    },
    {
      id: "openai",
      label: "OpenAI",
      available: Boolean(env.OPENAI_API_KEY),
      models: list(env.METRON_OPENAI_MODELS, ["gpt-5-mini", "gpt-5", "gpt-4o-mini"]),
      enable: "set OPENAI_API_KEY (and optionally METRON_OPENAI_MODELS=a,b)",
    },
    {
      id: "anthropic",
      label: "Anthropic",
      available: Boolean(env.ANTHROPIC_API_KEY),
      models: list(env.METRON_ANTHROPIC_MODELS, ["claude-sonnet-4-5", "claude-haiku-4-5"]),
      enable: "set ANTHROPIC_API_KEY (and optionally METRON_ANTHROPIC_MODELS=a,b)",
    },
    {
      id: "compatible",
      label: "OpenAI-compatible server (vLLM, Ollama, LM Studio)",
      available: Boolean(env.METRON_OPENAI_COMPATIBLE_URL),
      models: list(env.METRON_OPENAI_COMPATIBLE_MODELS, ["default"]),
      enable:
        "set METRON_OPENAI_COMPATIBLE_URL (e.g. http://127.0.0.1:11434/v1), optionally METRON_OPENAI_COMPATIBLE_KEY and METRON_OPENAI_COMPATIBLE_MODELS=a,b",
    },
  ];
}

/** A real provider's model; the simulated one is built per question (it needs the question). */
export function languageModel(
  provider: Exclude<ProviderId, "simulated">,
  model: string,
  env: NodeJS.ProcessEnv = process.env,
): LanguageModel {
  const info = listProviders(env).find((p) => p.id === provider);
  if (!info?.available)
    throw new Error(`provider ${provider} is not configured: ${info?.enable ?? "unknown provider"}`);
  if (provider === "openai") return createOpenAI({ apiKey: env.OPENAI_API_KEY })(model);
  if (provider === "anthropic") return createAnthropic({ apiKey: env.ANTHROPIC_API_KEY })(model);
  return createOpenAICompatible({
    name: "compatible",
    baseURL: env.METRON_OPENAI_COMPATIBLE_URL!,
    apiKey: env.METRON_OPENAI_COMPATIBLE_KEY,
  })(model);
}
