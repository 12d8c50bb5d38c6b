/** Synthetic traces for benchmarks: realistic sizes and repetition, no real data. */
const TABLES = Array.from({ length: 30 }, (_, i) => `table_${String.fromCharCode(97 + (i % 26))}${i}`);
const DESCRIBE = new Map(
  TABLES.map((t, i) => [
    t,
    Array.from(
      { length: 8 + (i % 10) },
      (_, c) =>
        `${t}_col${c} ${c % 3 ? "TEXT" : "INTEGER"}${c === 0 ? " PRIMARY KEY" : ""} -- description of column ${c} of ${t}`,
    ).join("\n"),
  ]),
);

function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

/** One whole-trace line of `steps` steps. */
export function syntheticTraceLine(
  i: number,
  steps = 40,
  run = { name: "bench", system: "No Directives", model: "bench-model" },
  /** The question and sample the trace answers (by default question `i`, sample 0). */
  at: { questionId?: string; sample?: number } = {},
): string {
  const r = rng(i + 1);
  const pick = () => TABLES[Math.floor(r() * TABLES.length)];
  const out = [];
  out.push({
    type: "tool_call",
    tool: "list_tables",
    args: {},
    result: TABLES.join("\n"),
    duration_ms: 3,
    usage: { input_tokens: 900, output_tokens: 30 },
  });
  for (let s = 1; s < steps - 1; s++) {
    const kind = r();
    if (kind < 0.35) {
      const t = pick();
      out.push({
        type: "tool_call",
        tool: "describe_table",
        args: { table_name: t },
        result: DESCRIBE.get(t),
        duration_ms: 2 + Math.floor(r() * 5),
        usage: { input_tokens: 1200 + s * 40, output_tokens: 25 },
      });
    } else if (kind < 0.75) {
      const t = pick();
      const rows = Array.from(
        { length: 5 + Math.floor(r() * 20) },
        (_, k) => `${k}|value_${Math.floor(r() * 1e6)}|${(r() * 1000).toFixed(2)}`,
      ).join("\n");
      out.push({
        type: "tool_call",
        tool: "read_query",
        args: {
          query: `SELECT ${t}_col1, count(*) FROM ${t} WHERE ${t}_col2 > ${Math.floor(r() * 100)} GROUP BY 1 LIMIT 25`,
          max_rows: 25,
        },
        result: rows,
        duration_ms: 5 + Math.floor(r() * 50),
        usage: { input_tokens: 1500 + s * 40, output_tokens: 60 },
      });
    } else {
      out.push({
        type: "reasoning",
        content:
          `Step ${s}: the question asks about ${pick()} joined with ${pick()}; checking the foreign keys before writing the query. `.repeat(
            2 + Math.floor(r() * 4),
          ),
        usage: { output_tokens: 120, reasoning_tokens: 100 },
      });
    }
  }
  const a = pick();
  const b = pick();
  const sql = `SELECT T1.${a}_col1 FROM ${a} AS T1 JOIN ${b} AS T2 ON T1.${a}_col0 = T2.${b}_col0 WHERE T2.${b}_col3 = 'x${i}'`;
  out.push({ type: "tool_call", tool: "submit_final_query", args: { query: sql }, result: "accepted", duration_ms: 1 });
  return JSON.stringify({
    run,
    ...(at.sample !== undefined ? { sample: at.sample } : {}),
    question: {
      id: at.questionId ?? String(i),
      db_id: `db_${i % 11}`,
      text: `Synthetic question ${i} about ${a} and ${b}?`,
      evidence: `${a} refers to something`,
      gold_sql: sql.replace("'x", "'y"),
      difficulty: ["simple", "moderate", "challenging"][i % 3],
    },
    steps: out,
    outcome: { correct: r() < 0.55, status: "submitted" },
  });
}
