/** The trace formats Metron reads, for selects and validation (kept apart from the adapters so the browser bundle stays small). */
export const FORMAT_OPTIONS = [
  { value: "canonical", label: "Metron canonical JSONL" },
  { value: "openai-messages", label: "OpenAI chat messages (incl. Spider-Agent)" },
  { value: "anthropic-messages", label: "Anthropic messages" },
  { value: "opencode", label: "OpenCode session export" },
  { value: "claude-code", label: "Claude Code session JSONL" },
  { value: "codex", label: "Codex CLI rollout JSONL" },
  { value: "livesqlbench", label: "LiveSQLBench agent results" },
  { value: "inspect", label: "Inspect AI log (.eval or .json)" },
  { value: "atif", label: "ATIF trajectory (Harbor, Terminal-Bench)" },
  { value: "otlp", label: "OpenTelemetry traces (OTLP/JSON)" },
  { value: "spider-agent-react", label: "Spider-Agent ReAct result.json (Spider 2.0)" },
  { value: "bird-interact", label: "BIRD-Interact agent run (JSONL)" },
  { value: "mac-sql", label: "MAC-SQL api_trace.json" },
] as const;

export const FORMATS = FORMAT_OPTIONS.map((f) => f.value);
