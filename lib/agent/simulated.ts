/**
 * The simulated policy: a deterministic, seeded language model (the AI SDK's LanguageModelV3 interface) that
 * behaves like an exploring agent, so the product works with no keys and tests run the real loop, tools and
 * ingest. It lists the tables, describes the gold tables and some distractors (fewer when directives name them),
 * probes with read_query, and submits the gold SQL — or, at a configurable rate, a plausible wrong variant
 * (joining a distractor it explored, or dropping a condition). Its traces are labelled simulated everywhere.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { seededRandom } from "@/lib/metrics/stats";

export interface SimulatedPolicy {
  name: string;
  /** Share of questions answered with a wrong variant. */
  wrongRate: number;
  /** Expected number of distractor tables described without directives. */
  distractors: number;
  /** Chance to still describe a table a directive flagged. */
  ignoreDirectiveRate: number;
  probes: number;
}

export const SIMULATED_POLICIES: Record<string, SimulatedPolicy> = {
  "sim-careful": { name: "sim-careful", wrongRate: 0.2, distractors: 1.5, ignoreDirectiveRate: 0.1, probes: 2 },
  "sim-hasty": { name: "sim-hasty", wrongRate: 0.4, distractors: 3, ignoreDirectiveRate: 0.3, probes: 1 },
};

export interface SimulatedQuestion {
  id: string;
  goldSql: string;
  goldTables: string[];
  tables: string[];
}

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason ?? new Error("aborted"));
    };
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });

type Action = { tool: string; input: Record<string, unknown> } | { text: string };

/** Plans the whole episode up front from the seed; the model replays it one step per call. */
export function planEpisode(
  policy: SimulatedPolicy,
  q: SimulatedQuestion,
  flagged: string[] | null,
  seed: number,
): Action[] {
  const random = seededRandom(seed);
  const gold = new Set(q.goldTables.map((t) => t.toLowerCase()));
  const flaggedSet = new Set((flagged ?? []).map((t) => t.toLowerCase()));
  const candidates = q.tables.filter((t) => !gold.has(t.toLowerCase()));
  const distractors: string[] = [];
  const wanted = Math.max(0, Math.round(policy.distractors + (random() - 0.5) * 2));
  // Each distractor the agent would look at is skipped when a directive flags it, unless it ignores the directive.
  for (const t of [...candidates].sort(() => random() - 0.5).slice(0, wanted)) {
    if (flaggedSet.has(t.toLowerCase()) && random() > policy.ignoreDirectiveRate) continue;
    distractors.push(t);
  }
  const explored = [...q.goldTables, ...distractors].sort(() => random() - 0.5);
  const actions: Action[] = [{ tool: "list_tables", input: {} }];
  for (const t of explored) actions.push({ tool: "describe_table", input: { table_name: t } });
  if (random() < 0.5) actions.push({ tool: "get_join_info", input: {} });
  for (let i = 0; i < policy.probes; i++)
    actions.push({
      tool: "read_query",
      input: { query: `SELECT * FROM "${q.goldTables[i % q.goldTables.length]}" LIMIT 3`, max_rows: 3 },
    });
  let sql = q.goldSql;
  if (random() < policy.wrongRate) sql = wrongVariant(q.goldSql, distractors[0], random);
  actions.push({ tool: "submit_final_query", input: { query: sql } });
  actions.push({ text: "Submitted." });
  return actions;
}

/** A plausible wrong answer to the gold SQL (exported for tests: it must still be valid SQL). */
export function wrongVariant(gold: string, distractor: string | undefined, random: () => number): string {
  const where = /\bWHERE\b/i.exec(gold);
  if (distractor && random() < 0.5) {
    // Join a table the gold SQL does not need: a failed trace with an extra table.
    // The first FROM table with its alias, if any (a keyword such as WHERE is not an alias).
    const from =
      /\bFROM\s+("?[\w]+"?)(\s+(?:AS\s+)?(?!(?:WHERE|JOIN|INNER|LEFT|CROSS|GROUP|ORDER|LIMIT|HAVING|ON|UNION|EXCEPT|INTERSECT)\b)\w+)?/i.exec(
        gold,
      );
    if (from) return gold.replace(from[0], `${from[0]} CROSS JOIN "${distractor}" AS extra_t`);
  }
  if (where) return gold.replace(/\bWHERE\b[\s\S]*?(?=\bGROUP BY\b|\bORDER BY\b|\bLIMIT\b|$)/i, "");
  if (/\bDESC\b/i.test(gold)) return gold.replace(/\bDESC\b/i, "ASC");
  return gold.replace(/\bLIMIT\s+\d+/i, "LIMIT 100") === gold
    ? `${gold.replace(/;\s*$/, "")} LIMIT 1`
    : gold.replace(/\bLIMIT\s+\d+/i, "LIMIT 100");
}

function flaggedFrom(options: LanguageModelV3CallOptions): string[] | null {
  for (const m of options.prompt) {
    if (m.role !== "tool") continue;
    for (const part of m.content) {
      if (part.type !== "tool-result" || part.toolName !== "list_tables") continue;
      const out = part.output as { type: string; value: unknown };
      const text = typeof out.value === "string" ? out.value : JSON.stringify(out.value);
      const i = text.indexOf("## Directives");
      if (i < 0) return [];
      return text
        .slice(i)
        .split("\n")
        .slice(2)
        .map((s) => s.trim())
        .filter(Boolean);
    }
  }
  return null;
}

const approxTokens = (options: LanguageModelV3CallOptions) => Math.ceil(JSON.stringify(options.prompt).length / 4);

export function createSimulatedModel(
  policy: SimulatedPolicy,
  question: SimulatedQuestion,
  seed: number,
  /** A pause before each reply, so a rerun's steps are seen arriving (METRON_SIM_STEP_DELAY_MS); 0 in the seed. */
  stepDelayMs = 0,
): LanguageModelV3 {
  let plan: Action[] | null = null;
  const generate = async (options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> => {
    if (stepDelayMs > 0) await pause(stepDelayMs, options.abortSignal);
    const turn = options.prompt.filter((m) => m.role === "assistant").length;
    // The plan is made once the first tool result (the table list, with any directives) is known.
    if (turn === 1 || !plan) plan = planEpisode(policy, question, flaggedFrom(options), seed);
    const action = plan[Math.min(turn, plan.length - 1)];
    const content: LanguageModelV3Content[] =
      "text" in action
        ? [{ type: "text", text: action.text }]
        : [
            {
              type: "tool-call",
              toolCallId: `sim-${seed}-${turn}`,
              toolName: action.tool,
              input: JSON.stringify(action.input),
            },
          ];
    const input = approxTokens(options);
    const output = 20 + Math.round(seededRandom(seed + turn)() * 60);
    return {
      content,
      finishReason: { unified: "text" in action ? "stop" : "tool-calls", raw: undefined },
      usage: {
        inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: output, text: output, reasoning: 0 },
      },
      warnings: [],
    };
  };
  return {
    specificationVersion: "v3",
    provider: "simulated",
    modelId: policy.name,
    supportedUrls: {},
    doGenerate: generate,
    async doStream(options) {
      const r = await generate(options);
      const parts: LanguageModelV3StreamPart[] = [{ type: "stream-start", warnings: [] }];
      for (const c of r.content) {
        if (c.type === "text")
          parts.push(
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: c.text },
            { type: "text-end", id: "t" },
          );
        else if (c.type === "tool-call") parts.push(c);
      }
      parts.push({ type: "finish", finishReason: r.finishReason, usage: r.usage });
      return {
        stream: new ReadableStream({
          start(controller) {
            parts.forEach((p) => controller.enqueue(p));
            controller.close();
          },
        }),
      };
    },
  };
}
