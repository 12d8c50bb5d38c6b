/** An agent job as the queue stores it (table `jobs`): a rerun, or one question × sample of a sweep. */
import type { Variant } from "@/lib/environment/directives";
import type { ProviderId } from "./providers";

export interface JobRow {
  id: string;
  trace_id: string | null;
  sweep_id: string | null;
  dataset_id: string | null;
  question_id: string | null;
  sample: number | null;
  client: string;
  provider: ProviderId;
  model: string;
  variant: Variant;
  /** A harness profile's name (lib/agent/harnesses.ts); null: Metron's own loop. */
  harness: string | null;
  limits: string | null;
  state: string;
  attempts: number;
  rate_limited: number;
}
