import type { Usage } from "./schema";

/** The canonical trace after assembly and defaults: what adapters produce and ingest stores. */
export interface Step {
  seq: number;
  type: "tool_call" | "message" | "reasoning" | "error";
  tool?: string;
  args?: unknown;
  result?: unknown;
  error?: string | null;
  role?: string;
  content?: string;
  started_at?: string;
  duration_ms?: number;
  usage?: Usage;
  model?: string;
  meta?: Record<string, unknown>;
}

export interface RunHeader {
  name: string;
  system: string;
  model: string;
  benchmark?: string;
  config?: Record<string, unknown>;
}

export interface Question {
  id: string;
  db_id?: string;
  text?: string;
  evidence?: string;
  gold_sql?: string;
  difficulty?: string;
}

export interface Directives {
  strategy: string;
  irrelevant_tables: string[];
  at_step?: number;
  overhead?: TraceUsage;
}

export interface Outcome {
  correct: boolean | null;
  status: string;
  error?: string | null;
}

export interface TraceUsage extends Usage {
  cost_usd?: number;
}

export interface Trace {
  run: RunHeader;
  question: Question;
  sample: number;
  directives?: Directives;
  steps: Step[];
  final_sql: string | null;
  outcome: Outcome;
  usage: TraceUsage;
  started_at?: string;
  duration_ms?: number;
  meta: Record<string, unknown>;
}

/** Run metadata given at upload or on the command line; fills what a file lacks. */
export interface RunDefaults {
  name?: string;
  system?: string;
  model?: string;
  benchmark?: string;
}
