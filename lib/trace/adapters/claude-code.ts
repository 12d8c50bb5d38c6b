/**
 * Claude Code session JSONL (`~/.claude/projects/…/<session>.jsonl`): `user`, `assistant`, `system` and `summary`
 * lines. One API response may be split over several assistant lines (one content block each) sharing
 * `message.id` and `requestId`: their blocks are merged and the usage is kept once. Tool results are
 * `tool_result` blocks in user lines; `toolUseResult` (an object, or an error string) completes them. MCP tools
 * are named `mcp__<server>__<tool>`. Sidechain (sub-agent) lines are kept, marked `meta.sidechain`.
 * One trace per `sessionId`.
 *
 * `claude -p --output-format stream-json` writes the same lines (without the question: the prompt is not echoed)
 * and ends with a `result` line. Its assistant lines carry the usage of the response's first event (Claude Code
 * 2.1.332 writes `output_tokens: 1`, seen in the harness suite), so the `result` line's `usage` — the session's
 * totals — is the trace's usage when present, and its `duration_ms` the trace's duration. A tool call's duration is
 * the time from its `tool_use` line to its `tool_result` line.
 */
import { appendBlocks } from "./anthropic-messages";
import { eachAlone, jsonLines, textOf, type Adapter, type AdaptedTrace, type ForeignStep } from "./types";

const CLAUDE_TYPES = ["user", "assistant", "system", "summary", "result"];

type Usage = {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
};

/** Anthropic usage as Metron counts it: input includes the cache read and write, cached is the read. */
function counted(u: Usage) {
  const cached = u.cache_read_input_tokens ?? 0;
  return {
    input_tokens: (u.input_tokens ?? 0) + cached + (u.cache_creation_input_tokens ?? 0),
    output_tokens: u.output_tokens ?? 0,
    cached_input_tokens: cached,
  };
}

type Line = {
  type?: string;
  sessionId?: string;
  isSidechain?: boolean;
  requestId?: string;
  timestamp?: string;
  uuid?: string;
  message?: {
    id?: string;
    role?: string;
    model?: string;
    content?: unknown;
    usage?: Usage;
  };
  /** The `result` line of stream-json output: the session's totals. */
  usage?: Usage;
  duration_ms?: number;
  session_id?: string;
  is_error?: boolean;
  subtype?: string;
  toolUseResult?: unknown;
  summary?: string;
  content?: unknown;
  cwd?: string;
  version?: string;
};

/** Line types Claude Code writes beside the conversation (2.0.x–2.1.x): skipped without a warning. */
const BOOKKEEPING = new Set([
  "queue-operation",
  "attachment",
  "atis-latch",
  "api-request-shape",
  "api-request-blob",
  "api-request",
  "last-prompt",
  "tools-used",
  "cost-state",
  "file-history-snapshot",
]);

export const claudeCodeAdapter: Adapter = {
  format: "claude-code",
  label: "Claude Code session JSONL",
  signature: "JSONL lines with type user/assistant/system/summary and a message, sessionId or uuid",
  adapt(text) {
    const { lines, warnings } = jsonLines(text.replace(/^\uFEFF/, ""));
    const sessions = new Map<
      string,
      {
        steps: ForeignStep[];
        byId: Map<string, ForeignStep>;
        question?: string;
        model?: string;
        started?: string;
        ended?: string;
        summary?: string;
        usage: { input: number; output: number; cached: number };
        result?: { usage?: ReturnType<typeof counted>; duration_ms?: number; subtype?: string; is_error?: boolean };
        seen: Set<string>;
      }
    >();
    let orphans = 0;
    const skipped = new Map<string, { first: number; n: number }>();
    for (const { value, lineNo } of lines) {
      const l = value as Line;
      if (!CLAUDE_TYPES.includes(l.type ?? "")) {
        // Claude Code's own bookkeeping (2.1.x) is not the conversation: skipped knowingly; other types are counted
        // once per type in a warning.
        if (!BOOKKEEPING.has(l.type ?? "")) {
          const k = JSON.stringify(l.type ?? null);
          const seen = skipped.get(k);
          if (seen) seen.n++;
          else skipped.set(k, { first: lineNo, n: 1 });
        }
        continue;
      }
      const id = l.sessionId ?? l.session_id ?? "session";
      let s = sessions.get(id);
      if (!s)
        sessions.set(
          id,
          (s = { steps: [], byId: new Map(), usage: { input: 0, output: 0, cached: 0 }, seen: new Set() }),
        );
      if (l.timestamp) {
        s.started ??= l.timestamp;
        s.ended = l.timestamp;
      }
      const meta = l.isSidechain ? { sidechain: true } : undefined;
      if (l.type === "result") {
        s.result = {
          ...(l.usage ? { usage: counted(l.usage) } : {}),
          ...(typeof l.duration_ms === "number" ? { duration_ms: l.duration_ms } : {}),
          ...(l.subtype ? { subtype: l.subtype } : {}),
          ...(l.is_error ? { is_error: true } : {}),
        };
        continue;
      }
      if (l.type === "summary") {
        s.summary = l.summary;
        continue;
      }
      if (l.type === "system") {
        s.steps.push({
          type: "message",
          role: "system",
          content: textOf(l.content ?? l.message?.content),
          ...(meta ? { meta } : {}),
        });
        continue;
      }
      const m = l.message;
      if (!m || typeof m !== "object" || m.content == null) {
        warnings.push({ line: lineNo, message: `${l.type} line without message.content: skipped` });
        continue;
      }
      if (l.type === "assistant") {
        s.model ??= m.model;
        // Usage once per API response: the split lines repeat it.
        const key = `${m.id ?? l.uuid}\u0000${l.requestId ?? ""}`;
        let usage;
        if (m.usage && !s.seen.has(key)) {
          s.seen.add(key);
          usage = counted(m.usage);
          s.usage.input += usage.input_tokens;
          s.usage.output += usage.output_tokens;
          s.usage.cached += usage.cached_input_tokens;
        }
        orphans += appendBlocks(s.steps, s.byId, "assistant", m.content as never, {
          ...(usage ? { usage } : {}),
          ...(m.model ? { model: m.model } : {}),
          ...(l.timestamp ? { started_at: l.timestamp } : {}),
          ...(meta ? { meta } : {}),
        });
        continue;
      }
      // A user line: the question, or tool results.
      const blocks = Array.isArray(m.content) ? (m.content as { type: string; tool_use_id?: string }[]) : null;
      if (!blocks || !blocks.some((b) => b.type === "tool_result")) {
        const t = textOf(m.content);
        if (t && !l.isSidechain && s.question === undefined) s.question = t;
        if (t) s.steps.push({ type: "message", role: "user", content: t, ...(meta ? { meta } : {}) });
        continue;
      }
      orphans += appendBlocks(s.steps, s.byId, "user", m.content as never, meta ? { meta } : {});
      for (const b of blocks) {
        const target = b.type === "tool_result" ? s.byId.get(b.tool_use_id ?? "") : undefined;
        if (!target) continue;
        if (l.timestamp && target.started_at && target.duration_ms === undefined) {
          const ms = Date.parse(l.timestamp) - Date.parse(target.started_at);
          if (ms >= 0) target.duration_ms = ms;
        }
        // The error string Claude Code kept ("Error: " + the tool's text) when the result block said nothing.
        if (!target.error && typeof l.toolUseResult === "string" && /^error/i.test(l.toolUseResult))
          target.error = l.toolUseResult;
      }
    }
    const traces: AdaptedTrace[] = eachAlone(
      [...sessions.entries()].filter(([, s]) => s.steps.length > 0),
      "session",
      warnings,
      ([sessionId, s]) => ({
        run: s.model ? { model: s.model } : undefined,
        question: { text: s.question },
        steps: s.steps,
        usage: s.result?.usage ?? {
          input_tokens: s.usage.input,
          output_tokens: s.usage.output,
          cached_input_tokens: s.usage.cached,
        },
        started_at: s.started,
        duration_ms:
          s.result?.duration_ms ?? (s.started && s.ended ? Date.parse(s.ended) - Date.parse(s.started) : undefined),
        meta: {
          source_format: "claude-code",
          session_id: sessionId,
          ...(s.summary ? { summary: s.summary } : {}),
          ...(s.result?.subtype ? { result: s.result.subtype } : {}),
          ...(s.result?.is_error ? { result_is_error: true } : {}),
        },
      }),
    );
    if (orphans)
      warnings.push({ line: 1, message: `${orphans} tool results without a matching tool_use kept as messages` });
    for (const [type, { first, n }] of skipped)
      warnings.push({
        line: first,
        message: `${n} line${n === 1 ? "" : "s"} of type ${type}, not a Claude Code conversation line: skipped`,
      });
    return { traces, warnings: warnings.sort((a, b) => a.line - b.line) };
  },
};
