import { describe, expect, it } from "vitest";
import { latexEscape, toLatex, toMarkdown, type ExportTable } from "./table-export";

const table: ExportTable = {
  caption: "bird_dev: EX & over-exploration; n = 500 questions per cell",
  label: "tab:bird dev",
  columns: [
    { label: "System", kind: "text" },
    { label: "EX", kind: "percent", best: "max" },
    { label: "Over-exploration", kind: "percent", best: "min" },
    { label: "Cost", kind: "usd", best: "min" },
  ],
  rows: [
    ["No_Directives", { value: 0.6123, low: 0.57, high: 0.655 }, { value: 1.5, low: 1.2, high: 1.8 }, { value: 2.5 }],
    ["Sophrosyne", { value: 0.6401, low: 0.6, high: 0.68 }, { value: 0.1, low: 0.05, high: 0.15 }, { value: null }],
  ],
};

describe("summary tables for a paper", () => {
  it("write booktabs LaTeX with intervals, the best per column in bold, and special characters escaped", () => {
    const tex = toLatex(table);
    expect(tex).toContain("\\toprule");
    expect(tex).toContain("\\midrule");
    expect(tex).toContain("\\bottomrule");
    expect(tex).toContain("\\begin{tabular}{lrrr}");
    expect(tex).toContain("System & EX (\\%) & Over-exploration (\\%) & Cost (USD) \\\\");
    expect(tex).toContain(
      "No\\_Directives & 61.2 {\\scriptsize [57.0, 65.5]} & 150.0 {\\scriptsize [120.0, 180.0]} & 2.50 \\\\",
    );
    expect(tex).toContain(
      "Sophrosyne & \\textbf{64.0} {\\scriptsize [60.0, 68.0]} & \\textbf{10.0} {\\scriptsize [5.0, 15.0]} & -- \\\\",
    );
    expect(tex).toContain("\\caption{bird\\_dev: EX \\& over-exploration; n = 500 questions per cell}");
    expect(tex).toContain("\\label{tab:bird-dev}");
  });

  it("write the same numbers as Markdown", () => {
    const md = toMarkdown(table);
    expect(md.split("\n")[0]).toBe("| System | EX (%) | Over-exploration (%) | Cost (USD) |");
    expect(md.split("\n")[1]).toBe("| --- | ---: | ---: | ---: |");
    expect(md).toContain("| Sophrosyne | **64.0** [60.0, 68.0] | **10.0** [5.0, 15.0] | -- |");
    expect(md).toContain("*bird_dev: EX & over-exploration; n = 500 questions per cell*");
  });

  it("escapes every LaTeX special character", () => {
    expect(latexEscape("a_b & c% $d #e {f} ~g ^h \\i")).toBe(
      "a\\_b \\& c\\% \\$d \\#e \\{f\\} \\textasciitilde{}g \\textasciicircum{}h \\textbackslash{}i",
    );
  });
});

describe("LaTeX that compiles", () => {
  it("writes symbols pdflatex's UTF-8 input does not know in math mode", () => {
    expect(latexEscape("(Σ exploratory − Σ gold) · Δ ≤ 1 × 2 …")).toBe(
      "($\\Sigma$ exploratory $-$ $\\Sigma$ gold) $\\cdot$ $\\Delta$ $\\leq$ 1 $\\times$ 2 \\ldots{}",
    );
  });
});

describe("the Experiments table of a store with real and simulated runs (issue 30)", () => {
  it("marks only the simulated rows, shows n per cell, and bolds totals only across cells of the same n", async () => {
    const { overviewTable, runStats } = await import("./overview").then(async (o) => ({
      overviewTable: o.overviewTable,
      runStats: (await import("./run-units")).runStats,
    }));
    const { makeTraceUnit } = await import("@/lib/testing/factories");
    const units = (n: number, correct: (i: number) => number, tokens: number) =>
      Array.from({ length: n }, (_, i) =>
        makeTraceUnit({ questionId: String(i), correct: correct(i), inputTokens: tokens, outputTokens: 10 }),
      );
    const cell = (n: number, simulated: boolean, tokens: number, cost: number) => ({
      runs: [{ id: `r${n}${simulated}`, name: simulated ? "sim" : "real", simulated }],
      stats: runStats(units(n, (i) => i % 2, tokens)),
      aggregates: { cost } as never,
    });
    const g = {
      group: "spider-de",
      models: ["gpt-4o"],
      systems: ["No Directives", "Sophrosyne"],
      cells: { "gpt-4o": { "No Directives": cell(23, false, 100, 0.5), Sophrosyne: cell(60, true, 50, 0.2) } },
      charts: {} as never,
    };
    const t = overviewTable(g as never);
    const tex = toLatex(t);
    expect(tex).toContain("No Directives & ");
    expect(tex).toContain("Sophrosyne (simulated) & ");
    expect(tex).not.toContain("No Directives (simulated)");
    expect(t.caption).not.toMatch(/^SIMULATED/); // the table is not simulated as a whole
    expect(t.caption).toContain("Rows marked (simulated) are SIMULATED demo data");
    expect(t.caption).toContain("n (questions) per row");
    // n per cell, and no bold total across 23 and 60 questions (60 × 50 tokens vs 23 × 100 is no comparison).
    const lines = tex.split("\n").filter((l) => l.includes("gpt-4o"));
    expect(lines[0]).toMatch(/ & 23 \\\\$/);
    expect(lines[1]).toMatch(/ & 60 \\\\$/);
    expect(lines.join("\n")).not.toMatch(/\\textbf\{(2300|3000|0\.2000|0\.5000)\}/);
  });

  it("prints no interval for a cell of a single question, in LaTeX, Markdown and overview.csv", async () => {
    const { overviewTable, runStats } = await import("./overview").then(async (o) => ({
      overviewTable: o.overviewTable,
      runStats: (await import("./run-units")).runStats,
    }));
    const csvTable = (await import("./exports")).overviewTable;
    const { makeTraceUnit } = await import("@/lib/testing/factories");
    const cell = (n: number) => ({
      runs: [{ id: `r${n}`, name: `run ${n}`, simulated: false }],
      stats: runStats(
        Array.from({ length: n }, (_, i) =>
          makeTraceUnit({ questionId: String(i), correct: i % 2, exploratory: 3, goldCount: 2 }),
        ),
      ),
      aggregates: { cost: null, directiveOverheadCost: null, directiveRecall: null } as never,
    });
    const g = {
      group: "bird",
      models: ["m"],
      systems: ["No Directives", "Sophrosyne"],
      cells: { m: { "No Directives": cell(1), Sophrosyne: cell(20) } },
      charts: {} as never,
    };
    const t = overviewTable(g as never);
    const [one, twenty] = toLatex(t)
      .split("\n")
      .filter((l) => l.startsWith("m & "));
    expect(one).toMatch(/^m & No Directives & 0\.0 & (\\textbf\{)?50\.0\}? & /);
    expect(one).not.toContain("scriptsize");
    expect(twenty).toMatch(/^m & Sophrosyne & \S+ \{\\scriptsize \[/);
    expect(t.caption).toContain(
      "(none where a figure comes from a single question, for EX a single judged one, or every question has the same value)",
    );
    expect(
      toMarkdown(t)
        .split("\n")
        .find((l) => l.includes("No Directives")),
    ).not.toContain("[");
    const csv = csvTable([g as never]);
    const col = (name: string) => csv.columns.indexOf(name);
    const [first, second] = csv.rows;
    expect(first[col("ex_mean_over_questions")]).toBe(0);
    expect(first[col("ex_mean_over_questions_low")]).toBeNull();
    expect(first[col("over_high")]).toBeNull();
    expect(second[col("ex_mean_over_questions_low")]).toEqual(expect.any(Number));
  });

  it("counts the questions a figure comes from: twenty questions of which one is judged have no EX interval", async () => {
    const { runStats } = await import("./run-units");
    const csvTable = (await import("./exports")).overviewTable;
    const { makeTraceUnit } = await import("@/lib/testing/factories");
    // Twenty questions; only question 0 was judged and has gold tables, question 1 has gold tables too.
    const stats = runStats(
      Array.from({ length: 20 }, (_, i) =>
        makeTraceUnit({
          questionId: String(i),
          correct: i === 0 ? 1 : null,
          exploratory: i < 2 ? 4 - i : 5,
          goldCount: i < 2 ? 2 : null,
        }),
      ),
    );
    expect(stats.questions).toBe(20);
    expect(stats.ex).toMatchObject({ estimate: 1, low: 1, high: 1, units: 1 });
    expect(stats.over).toMatchObject({ estimate: 0.75, units: 2 }); // (4 + 3 − 4) / 4
    expect(stats.over!.low).toBeLessThan(stats.over!.high);
    const g = {
      group: "bird",
      models: ["m"],
      systems: ["Sophrosyne"],
      cells: {
        m: {
          Sophrosyne: {
            runs: [{ id: "r", name: "run", simulated: false }],
            stats,
            aggregates: { cost: null, directiveOverheadCost: null, directiveRecall: null } as never,
          },
        },
      },
      charts: {} as never,
    };
    const csv = csvTable([g as never]);
    const col = (name: string) => csv.columns.indexOf(name);
    expect(csv.rows[0][col("ex_mean_over_questions")]).toBe(1);
    expect(csv.rows[0][col("ex_mean_over_questions_low")]).toBeNull();
    expect(csv.rows[0][col("over_low")]).toEqual(expect.any(Number));
    const { overviewTable } = await import("./overview");
    const t = overviewTable(g as never);
    expect(t.caption).toContain(
      "(none where a figure comes from a single question, for EX a single judged one, or every question has the same value)",
    );
    expect(
      toLatex(t)
        .split("\n")
        .find((l) => l.startsWith("m & ")),
    ).toMatch(/^m & Sophrosyne & \S+ & \S+ \{\\scriptsize \[/);
  });
});

describe("differences of percentages", () => {
  it("are percentage points, signed, never '%'", () => {
    const t: ExportTable = {
      caption: "c",
      label: "l",
      columns: [
        { label: "System", kind: "text" },
        { label: "Δ over-exploration", kind: "points", best: "min" },
      ],
      rows: [
        ["A", { value: -0.123, low: -0.2, high: -0.05 }],
        ["B", { value: 0.04, low: 0, high: 0.1 }],
      ],
    };
    const md = toMarkdown(t);
    expect(md).toContain("Δ over-exploration (pp)");
    expect(md).toContain("**-12.3** [-20.0, -5.0]");
    expect(md).toContain("+4.0 [0.0, +10.0]");
    expect(md).not.toContain("%");
  });
});
