/**
 * Did a rerun fix it? A rerun's trace judged against the trace it started from: each side's correctness is its
 * execution accuracy when evaluated, else its recorded outcome (`effectiveCorrect`, lib/db/typed-sql.ts); with either unknown there is
 * no verdict, and it says which side is missing. Deltas are the rerun's minus the original's.
 */
import type { Sql } from "@/lib/db/sql";
import { one, qb } from "@/lib/db/typed";
import { effectiveCorrect } from "@/lib/db/typed-sql";

export type VerdictKind = "fixed" | "regressed" | "still right" | "still wrong" | "unknown";

export interface Verdict {
  kind: VerdictKind;
  /** Why there is no verdict (which side is not judged). */
  reason?: string;
  before: boolean | null;
  after: boolean | null;
  /** Over-exploration (tables) and tokens, rerun minus original; null when either side does not record it. */
  overExplorationDelta: number | null;
  tokensDelta: number | null;
}

export function verdictOf(before: boolean | null, after: boolean | null): VerdictKind {
  if (before === null || after === null) return "unknown";
  if (before) return after ? "still right" : "regressed";
  return after ? "fixed" : "still wrong";
}

interface Side {
  correct: number | null;
  overExploration: number | null;
  tokens: number | null;
}

export async function traceVerdict(sql: Sql, originalId: string, rerunId: string): Promise<Verdict> {
  const side = (id: string) =>
    one(
      sql,
      qb(sql)
        .selectFrom("traces as t")
        .select((eb) => [
          effectiveCorrect(eb, "t.ex_outcome", "t.recorded_correct").as("correct"),
          "t.over_exploration as overExploration",
          eb
            .case()
            .when("t.tokens_recorded", "=", 1)
            .then(eb("t.input_tokens", "+", eb.ref("t.output_tokens")))
            .end()
            .as("tokens"),
        ])
        .where("t.id", "=", id),
    ) as Promise<Side | undefined>;
  const a = await side(originalId);
  const b = await side(rerunId);
  const before = a?.correct == null ? null : a.correct === 1;
  const after = b?.correct == null ? null : b.correct === 1;
  const kind = verdictOf(before, after);
  const delta = (x: number | null | undefined, y: number | null | undefined) => (x == null || y == null ? null : y - x);
  return {
    kind,
    ...(kind === "unknown"
      ? {
          reason:
            before === null && after === null
              ? "neither trace is judged"
              : before === null
                ? "the original is not judged (evaluate its run)"
                : "the rerun is not judged (no gold result)",
        }
      : {}),
    before,
    after,
    overExplorationDelta: delta(a?.overExploration, b?.overExploration),
    tokensDelta: delta(a?.tokens, b?.tokens),
  };
}
