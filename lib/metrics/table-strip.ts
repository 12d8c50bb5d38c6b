/**
 * The question page's table strip: every table of the question's database with its marks (gold, explored and
 * how often, flagged by a directive, in the final SQL), and the step at which every gold table had been seen.
 * Pure; names compare case-insensitively, as in SQLite.
 */

export interface StripStep {
  seq: number;
  tables: string[];
  exploratory: boolean;
}

export interface TableChip {
  name: string;
  gold: boolean;
  /** Exploratory calls that named this table. */
  explored: number;
  /** Steps of any kind that touched it (describe, probe, submission). */
  touched: number;
  flagged: boolean;
  inFinal: boolean;
  /** Gold but never explored, or explored but not gold: the marks that stand out. */
  goldNeverExplored: boolean;
  nonGoldExplored: boolean;
  /** The steps that touched it (at most `seqCap`). */
  seqs: number[];
}

export interface StripInput {
  databaseTables: string[] | null;
  gold: string[] | null;
  flagged: string[] | null;
  final: string[] | null;
  steps: StripStep[];
}

const k = (t: string) => t.toLowerCase();

export function buildTableStrip(input: StripInput, seqCap = 100): TableChip[] {
  const names = new Map<string, string>();
  const add = (list: string[] | null) =>
    list?.forEach((t) => {
      if (!names.has(k(t))) names.set(k(t), t);
    });
  add(input.databaseTables);
  add(input.gold);
  add(input.final);
  add(input.flagged);
  for (const s of input.steps) add(s.tables);
  const gold = new Set((input.gold ?? []).map(k));
  const flagged = new Set((input.flagged ?? []).map(k));
  const final = new Set((input.final ?? []).map(k));
  const chips = new Map<string, TableChip>();
  for (const [key, name] of names) {
    chips.set(key, {
      name,
      gold: gold.has(key),
      explored: 0,
      touched: 0,
      flagged: flagged.has(key),
      inFinal: final.has(key),
      goldNeverExplored: false,
      nonGoldExplored: false,
      seqs: [],
    });
  }
  for (const s of input.steps) {
    const seen = new Set<string>();
    for (const t of s.tables) {
      const chip = chips.get(k(t))!;
      if (seen.has(k(t))) continue;
      seen.add(k(t));
      chip.touched++;
      if (s.exploratory) chip.explored++;
      if (chip.seqs.length < seqCap) chip.seqs.push(s.seq);
    }
  }
  for (const chip of chips.values()) {
    chip.goldNeverExplored = input.gold !== null && chip.gold && chip.explored === 0;
    chip.nonGoldExplored = input.gold !== null && !chip.gold && chip.explored > 0;
  }
  // Gold first, then the tables the agent went to, then the rest; alphabetical within.
  const rank = (c: TableChip) => (c.gold ? 0 : c.touched > 0 || c.inFinal ? 1 : 2);
  return [...chips.values()].sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
}

/** The first step after which every gold table had been seen (touched by any step); null if never or no gold. */
export function allGoldSeenAt(gold: string[] | null, steps: StripStep[]): number | null {
  if (!gold || gold.length === 0) return null;
  const missing = new Set(gold.map(k));
  for (const s of steps) {
    for (const t of s.tables) missing.delete(k(t));
    if (missing.size === 0) return s.seq;
  }
  return null;
}
