import type { DatabaseInfo, QuestionInfo } from "../database-info";

export const variants = ["none", "computed", "oracle"] as const;
export type Variant = (typeof variants)[number];

/** The system (variant) name a run of each strategy carries, as in the Sophrosyne paper. */
export const SYSTEM_OF: Record<Variant, string> = {
  none: "No Directives",
  computed: "Sophrosyne",
  oracle: "Sophrosyne-Oracle",
};

export interface DirectiveResult {
  /** Tables named as probably irrelevant to the question. */
  irrelevant: string[];
  /** How they were chosen (phrases, hits, parameters), kept in the trace. */
  explanation: Record<string, unknown>;
}

export type DirectiveStrategy = (question: QuestionInfo, database: DatabaseInfo) => Promise<DirectiveResult>;
