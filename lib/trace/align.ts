/**
 * Aligns the steps of two traces of one question (Needleman–Wunsch), so matching steps sit on one row, steps only
 * one trace took stand alone, and the first divergence is known. Steps are compared by their tool, the tables they
 * touched and their normalised SQL (or arguments): the same on all three is "same"; the same tool on overlapping
 * tables with other SQL is "changed"; a different tool, or disjoint tables, are not matched (a gap on each side
 * scores better). Pure.
 */

export interface AlignStep {
  seq: number;
  tool: string;
  tables: string[];
  /** The SQL the step ran, or its arguments, as text; null when it has none. */
  text: string | null;
}

export type AlignKind = "same" | "changed" | "only-left" | "only-right";

export interface AlignedRow {
  left: AlignStep | null;
  right: AlignStep | null;
  kind: AlignKind;
}

export interface Alignment {
  rows: AlignedRow[];
  /** Index in `rows` of the first row that is not "same"; null when the traces took the same steps. */
  firstDivergence: number | null;
  same: number;
  changed: number;
  onlyLeft: number;
  onlyRight: number;
}

/** SQL or arguments compared without case, quoting, spacing or a trailing semicolon. */
export function normaliseText(text: string | null): string | null {
  if (text === null) return null;
  return text
    .toLowerCase()
    .replace(/[`"[\]]/g, "")
    .replace(/\s+/g, " ")
    .replace(/\s*([(),=<>;:{}])\s*/g, "$1")
    .replace(/;+\s*$/, "")
    .trim();
}

const tableSet = (s: AlignStep) => new Set(s.tables.map((t) => t.toLowerCase()));

const GAP = -1;

/**
 * Same tool, same tables, same text: "same". Same tool on tables that overlap (or no tables on either side):
 * "changed" — a query that added a join, a submission with another answer. Other tools, or disjoint tables
 * (describing another table), are not matched.
 */
function score(a: AlignStep, b: AlignStep): { score: number; kind: AlignKind | null } {
  if (a.tool !== b.tool) return { score: -Infinity, kind: null };
  const ta = tableSet(a);
  const tb = tableSet(b);
  const equal = ta.size === tb.size && [...ta].every((t) => tb.has(t));
  if (equal && normaliseText(a.text) === normaliseText(b.text)) return { score: 3, kind: "same" };
  if (equal || [...ta].some((t) => tb.has(t))) return { score: 1, kind: "changed" };
  return { score: -Infinity, kind: null };
}

/** The alignment of two step lists (at most a few thousand steps each: O(n·m) time and memory). */
export function alignSteps(left: AlignStep[], right: AlignStep[]): Alignment {
  const n = left.length;
  const m = right.length;
  const w = m + 1;
  const dp = new Float64Array((n + 1) * w);
  const from = new Uint8Array((n + 1) * w); // 0 diagonal, 1 up (left only), 2 across (right only)
  for (let i = 1; i <= n; i++) {
    dp[i * w] = i * GAP;
    from[i * w] = 1;
  }
  for (let j = 1; j <= m; j++) {
    dp[j] = j * GAP;
    from[j] = 2;
  }
  for (let i = 1; i <= n; i++)
    for (let j = 1; j <= m; j++) {
      const diag = dp[(i - 1) * w + j - 1] + score(left[i - 1], right[j - 1]).score;
      const up = dp[(i - 1) * w + j] + GAP;
      const across = dp[i * w + j - 1] + GAP;
      // Ties prefer a match, then the left trace's step first.
      if (diag >= up && diag >= across) {
        dp[i * w + j] = diag;
        from[i * w + j] = 0;
      } else if (up >= across) {
        dp[i * w + j] = up;
        from[i * w + j] = 1;
      } else {
        dp[i * w + j] = across;
        from[i * w + j] = 2;
      }
    }
  const rows: AlignedRow[] = [];
  let i = n;
  let j = m;
  while (i > 0 || j > 0) {
    const f = i > 0 && j > 0 ? from[i * w + j] : i > 0 ? 1 : 2;
    if (f === 0) {
      rows.push({ left: left[i - 1], right: right[j - 1], kind: score(left[i - 1], right[j - 1]).kind! });
      i--;
      j--;
    } else if (f === 1) {
      rows.push({ left: left[i - 1], right: null, kind: "only-left" });
      i--;
    } else {
      rows.push({ left: null, right: right[j - 1], kind: "only-right" });
      j--;
    }
  }
  rows.reverse();
  const first = rows.findIndex((r) => r.kind !== "same");
  const count = (k: AlignKind) => rows.filter((r) => r.kind === k).length;
  return {
    rows,
    firstDivergence: first < 0 ? null : first,
    same: count("same"),
    changed: count("changed"),
    onlyLeft: count("only-left"),
    onlyRight: count("only-right"),
  };
}
