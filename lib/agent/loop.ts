/**
 * The agent loop (AI SDK 6): the model explores the question's database through the environment's tools until
 * it submits, or a limit stops it (steps, output tokens per call, wall time, a cancel). Each finished step is
 * emitted as canonical steps while the loop runs; the result is a canonical trace for the normal ingest path,
 * partial when a provider error or a limit ended it. Dependencies (model, environment) are injected.
 */
import { APICallError, generateText, hasToolCall, RetryError, stepCountIs, tool, type LanguageModel } from "ai";
import type { Tracer } from "@opentelemetry/api";
import { positiveNumber } from "@/lib/config/env";
import { agentTracer } from "@/lib/otel/emit";
import { toolDescriptions, toolInputs, type SqlEnvironment, type ToolName } from "@/lib/environment/tools";
import type { ForeignStep } from "@/lib/trace/adapters/types";
import { SYSTEM_PROMPT, userPrompt } from "./prompts";

export interface AgentLimits {
  maxSteps: number;
  maxOutputTokens: number;
  wallTimeMs: number;
}

export function defaultLimits(): AgentLimits {
  return {
    maxSteps: positiveNumber("METRON_AGENT_MAX_STEPS", 30),
    maxOutputTokens: positiveNumber("METRON_AGENT_MAX_OUTPUT_TOKENS", 4096),
    wallTimeMs: positiveNumber("METRON_AGENT_WALL_TIME_MS", 300_000),
  };
}

export interface LoopResult {
  trace: Record<string, unknown>;
  status: "submitted" | "no_submission" | "max_steps" | "timeout" | "cancelled" | "error";
  error?: string;
  /** A provider's HTTP failure (after the SDK's own retries): its status and any retry-after it asked for. */
  failure?: { statusCode?: number; retryAfterMs?: number };
  /** A failure that another attempt would repeat (a harness that exits non-zero): not retried. */
  final?: boolean;
  /**
   * Tokens the loop used, summed over the model calls that reported usage; null when none did (a provider that
   * reports no usage: unknown, never 0). `unreported` counts the model calls without usage.
   */
  usage: {
    input_tokens: number;
    output_tokens: number;
    reasoning_tokens: number;
    cached_input_tokens: number;
    unreported: number;
  } | null;
}

/** The HTTP status and retry-after of a provider error, looking through the SDK's retry wrapper. */
export function providerFailure(e: unknown): LoopResult["failure"] {
  const last = RetryError.isInstance(e) ? e.lastError : e;
  if (!APICallError.isInstance(last)) return undefined;
  const h = last.responseHeaders ?? {};
  const ms = h["retry-after-ms"]
    ? Number(h["retry-after-ms"])
    : h["retry-after"]
      ? retryAfterMs(h["retry-after"])
      : NaN;
  return { statusCode: last.statusCode, ...(Number.isFinite(ms) && ms >= 0 ? { retryAfterMs: ms } : {}) };
}

function retryAfterMs(value: string): number {
  const seconds = Number(value);
  return Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
}

export async function runAgentLoop(opts: {
  model: LanguageModel;
  modelName: string;
  env: SqlEnvironment;
  limits?: AgentLimits;
  onStep?: (step: ForeignStep & { seq: number }) => void;
  signal?: AbortSignal;
  /** The SDK's retries of one model call (429 and 5xx, honouring retry-after); default 1. */
  maxRetries?: number;
  /**
   * OpenTelemetry spans of the loop (the AI SDK's, GenAI conventions): to this tracer, else to the OTLP endpoint of
   * OTEL_EXPORTER_OTLP_ENDPOINT when set (lib/otel/emit.ts); `metadata` is added as `metron.*` attributes.
   */
  telemetry?: { tracer?: Tracer; metadata?: Record<string, string | number> };
}): Promise<LoopResult> {
  const { env, modelName } = opts;
  const tracer = opts.telemetry?.tracer ?? agentTracer();
  const limits = opts.limits ?? defaultLimits();
  const steps: (ForeignStep & { seq: number })[] = [];
  const usage = { input_tokens: 0, output_tokens: 0, reasoning_tokens: 0, cached_input_tokens: 0 };
  let reportedCalls = 0;
  let unreportedCalls = 0;
  let envCursor = 0;
  const push = (s: ForeignStep) => {
    const step = { ...s, seq: steps.length };
    steps.push(step);
    opts.onStep?.(step);
  };
  const flushToolSteps = () => {
    while (envCursor < env.steps.length) {
      const r = env.steps[envCursor++];
      push({
        type: "tool_call",
        tool: r.tool,
        args: r.args,
        result: r.result,
        ...(r.error ? { error: r.error } : {}),
        started_at: r.started_at,
        duration_ms: r.duration_ms,
      });
    }
  };

  const controller = new AbortController();
  let stopReason: "timeout" | "cancelled" | null = null;
  const timer = setTimeout(() => {
    stopReason = "timeout";
    controller.abort();
  }, limits.wallTimeMs);
  const onCancel = () => {
    stopReason = "cancelled";
    controller.abort();
  };
  opts.signal?.addEventListener("abort", onCancel);
  if (opts.signal?.aborted) onCancel();

  const tools = Object.fromEntries(
    (Object.keys(toolInputs) as ToolName[]).map((name) => [
      name,
      tool({
        description: toolDescriptions[name],
        inputSchema: toolInputs[name],
        execute: async (input: unknown) => env.call(name, input),
      }),
    ]),
  );

  let status: LoopResult["status"];
  let error: string | undefined;
  let failure: LoopResult["failure"];
  try {
    const result = await generateText({
      model: opts.model,
      system: SYSTEM_PROMPT,
      prompt: userPrompt(env.question.text, env.question.evidence),
      tools,
      stopWhen: [stepCountIs(limits.maxSteps), hasToolCall("submit_final_query")],
      maxOutputTokens: limits.maxOutputTokens,
      maxRetries: opts.maxRetries ?? 1,
      abortSignal: controller.signal,
      ...(tracer
        ? {
            experimental_telemetry: {
              isEnabled: true,
              functionId: "metron-agent",
              tracer,
              metadata: {
                "metron.run.model": modelName,
                "metron.question.id": env.question.id,
                "metron.question.db_id": env.question.dbId,
                ...opts.telemetry?.metadata,
              },
            },
          }
        : {}),
      onStepFinish: (step) => {
        const u = step.usage;
        // A call whose provider reported no usage has none (unknown), not zero tokens.
        const reported = u.inputTokens !== undefined || u.outputTokens !== undefined;
        const stepUsage = reported
          ? {
              input_tokens: u.inputTokens ?? 0,
              output_tokens: u.outputTokens ?? 0,
              reasoning_tokens: u.outputTokenDetails?.reasoningTokens ?? 0,
              cached_input_tokens: u.inputTokenDetails?.cacheReadTokens ?? 0,
            }
          : undefined;
        if (stepUsage) {
          reportedCalls++;
          usage.input_tokens += stepUsage.input_tokens;
          usage.output_tokens += stepUsage.output_tokens;
          usage.reasoning_tokens += stepUsage.reasoning_tokens;
          usage.cached_input_tokens += stepUsage.cached_input_tokens;
        } else unreportedCalls++;
        const first = steps.length;
        if (step.reasoningText)
          push({ type: "reasoning", role: "assistant", content: step.reasoningText, model: modelName });
        if (step.text) push({ type: "message", role: "assistant", content: step.text, model: modelName });
        flushToolSteps();
        if (steps[first]) {
          if (stepUsage) steps[first].usage = stepUsage;
        } else
          push({
            type: "message",
            role: "assistant",
            content: "",
            ...(stepUsage ? { usage: stepUsage } : {}),
            model: modelName,
          });
      },
    });
    status =
      env.finalSql !== null ? "submitted" : result.steps.length >= limits.maxSteps ? "max_steps" : "no_submission";
  } catch (e) {
    status = stopReason ?? "error";
    if (!stopReason) failure = providerFailure(e);
    error =
      stopReason === "timeout"
        ? `stopped at the wall-time limit of ${limits.wallTimeMs} ms (METRON_AGENT_WALL_TIME_MS)`
        : stopReason === "cancelled"
          ? "cancelled"
          : (e as Error).message;
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onCancel);
  }
  flushToolSteps(); // tool calls that ran before an error cut the step short
  if (error) push({ type: "error", content: error, error });
  const total = reportedCalls > 0 ? { ...usage, unreported: unreportedCalls } : null;
  const trace = env.trace({ status, error, ...(total ? { usage } : {}), steps });
  (trace.meta as Record<string, unknown>).agent = {
    model: modelName,
    limits,
    ...(unreportedCalls ? { model_calls_without_usage: unreportedCalls } : {}),
  };
  return { trace, status, error, ...(failure ? { failure } : {}), usage: total };
}
