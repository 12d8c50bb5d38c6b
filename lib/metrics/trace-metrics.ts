/**
 * Per-trace metrics, computed once at ingest and stored in columns (definitions: ../../docs/metrics.md,
 * after the Sophrosyne paper, DOMAIN.md):
 * - exploratory calls: `describe_table` calls and `read_query` probes of a table's schema (classify-step.ts);
 * - gold count: the number of distinct tables the gold SQL references;
 * - over-exploration of one trace: exploratory − gold (a run's: (Σ exploratory − Σ gold) / Σ gold, in SQL);
 * - explored tables: the tables named by exploratory calls; non-gold explored; gold never explored;
 * - extra tables: tables of the final SQL that the gold SQL does not use (failed-with-extra-tables when the
 *   trace also failed);
 * - directive recall: share of gold tables not flagged irrelevant; flag rate: share of non-gold tables flagged;
 *   violations: explored tables that a directive flagged.
 * Pure: the caller classifies steps and resolves gold and final tables.
 */
import type { StepClass, StepRole } from "@/lib/sql/classify-step";
import { stepRoles } from "@/lib/sql/classify-step";

export interface TraceMetricsInput {
  steps: (StepClass | null)[];
  goldTables: string[] | null;
  finalTables: string[] | null;
  /** Every table of the question's database, when known. */
  databaseTables: string[] | null;
  irrelevantTables: string[] | null;
}

export interface TraceMetrics {
  exploratoryCalls: number;
  goldCount: number | null;
  overExploration: number | null;
  exploredTables: string[];
  nonGoldExplored: string[] | null;
  goldNeverExplored: string[] | null;
  extraTables: string[] | null;
  directiveRecall: number | null;
  directiveFlagRate: number | null;
  directiveViolations: string[] | null;
  roleCounts: Record<StepRole, number>;
}

const key = (t: string) => t.toLowerCase();

function minus(a: string[], b: string[]): string[] {
  const drop = new Set(b.map(key));
  return a.filter((t) => !drop.has(key(t)));
}

function intersect(a: string[], b: string[]): string[] {
  const keep = new Set(b.map(key));
  return a.filter((t) => keep.has(key(t)));
}

function unique(tables: string[]): string[] {
  const seen = new Map<string, string>();
  for (const t of tables) if (!seen.has(key(t))) seen.set(key(t), t);
  return [...seen.values()];
}

export function computeTraceMetrics(input: TraceMetricsInput): TraceMetrics {
  const roleCounts = Object.fromEntries(stepRoles.map((r) => [r, 0])) as Record<StepRole, number>;
  let exploratoryCalls = 0;
  const explored: string[] = [];
  for (const s of input.steps) {
    if (!s) continue;
    roleCounts[s.role]++;
    if (s.exploratory) {
      exploratoryCalls++;
      explored.push(...s.tables);
    }
  }
  const exploredTables = unique(explored);
  const gold = input.goldTables ? unique(input.goldTables) : null;
  const flagged = input.irrelevantTables ? unique(input.irrelevantTables) : null;
  let directiveFlagRate: number | null = null;
  if (flagged && gold && input.databaseTables) {
    const nonGold = minus(unique(input.databaseTables), gold);
    directiveFlagRate = nonGold.length ? intersect(flagged, nonGold).length / nonGold.length : null;
  }
  return {
    exploratoryCalls,
    goldCount: gold ? gold.length : null,
    overExploration: gold ? exploratoryCalls - gold.length : null,
    exploredTables,
    nonGoldExplored: gold ? minus(exploredTables, gold) : null,
    goldNeverExplored: gold ? minus(gold, exploredTables) : null,
    extraTables: gold && input.finalTables ? minus(unique(input.finalTables), gold) : null,
    directiveRecall: flagged && gold && gold.length ? minus(gold, flagged).length / gold.length : null,
    directiveFlagRate,
    directiveViolations: flagged ? intersect(exploredTables, flagged) : null,
    roleCounts,
  };
}
