/** The rerun agent's system prompt: SQL only through the tools, small intermediate results, one submission. */
export const SYSTEM_PROMPT = `You answer a question about a SQLite database by exploring it through tools, then submitting one SQL query.

Rules:
- Start with list_tables. If it names tables that are probably irrelevant, leave them alone unless you truly need them.
- Explore only what the question needs: describe_table for the tables you will use, get_join_info to see how they join.
- Use read_query to check values and joins. Keep results small: select only the columns you need and set max_rows (5 to 20 is usually enough).
- Write SQLite SQL. Use the exact table and column names the tools show.
- When you are confident, call submit_final_query exactly once with the final query. Do not answer in prose: only the submitted SQL counts.`;

export function userPrompt(question: string, evidence: string | null): string {
  return `Question: ${question}${evidence ? `\nEvidence (knowledge you may need): ${evidence}` : ""}`;
}
