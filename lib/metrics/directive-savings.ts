/**
 * What directives would have saved, before paying for a sweep (pure). For a run without directives, each
 * question's directives are computed offline (oracle and computed strategies); an exploratory call whose table a
 * directive flags is a call an obedient agent would not have made. The estimate of a directive variant's
 * over-exploration is (Σ exploratory − Σ saved − Σ gold) / Σ gold over the traces with known gold tables.
 * It assumes perfect obedience and no new calls: an upper bound on what the variant removes.
 *
 * A call that reads a gold table is never counted as saved, even when the strategy flags that table: an agent
 * that obeyed would have lost a table its answer needs, not saved a call. Those flags are counted apart (gold tables
 * hidden, and the calls on them), so an estimate is never above the oracle's, whose flags are the non-gold tables.
 */
import { overExploration } from "./stats";

export interface SavingsTrace {
  gold: string[] | null;
  /** The tables of each exploratory call (empty when the call named none). */
  exploratoryCalls: string[][];
  /** Tables the strategy flags for this question; null when it could not be computed. */
  flagged: string[] | null;
}

export interface SavingsEstimate {
  traces: number;
  exploratory: number;
  saved: number;
  gold: number;
  measured: number | null;
  estimated: number | null;
  /** Gold tables the strategy flags (over the traces), and the traces where it flags at least one. */
  hiddenGold: number;
  tracesHidingGold: number;
  /** Exploratory calls whose tables are all flagged but include a gold table: not saved (see above). */
  callsOnHiddenGold: number;
}

export function estimateSavings(traces: SavingsTrace[]): SavingsEstimate {
  let exploratory = 0;
  let saved = 0;
  let gold = 0;
  let n = 0;
  let hiddenGold = 0;
  let tracesHidingGold = 0;
  let callsOnHiddenGold = 0;
  for (const t of traces) {
    if (!t.gold || !t.flagged) continue;
    n++;
    const flagged = new Set(t.flagged.map((x) => x.toLowerCase()));
    const goldSet = new Set(t.gold.map((x) => x.toLowerCase()));
    const hidden = [...goldSet].filter((g) => flagged.has(g)).length;
    hiddenGold += hidden;
    if (hidden) tracesHidingGold++;
    exploratory += t.exploratoryCalls.length;
    gold += t.gold.length;
    for (const call of t.exploratoryCalls) {
      if (call.length === 0 || !call.every((x) => flagged.has(x.toLowerCase()))) continue;
      if (call.some((x) => goldSet.has(x.toLowerCase()))) callsOnHiddenGold++;
      else saved++;
    }
  }
  return {
    traces: n,
    exploratory,
    saved,
    gold,
    hiddenGold,
    tracesHidingGold,
    callsOnHiddenGold,
    measured: overExploration([{ exploratory, gold }]),
    estimated: overExploration([{ exploratory: exploratory - saved, gold }]),
  };
}
