/** Role colours and short labels shared by the timeline, the table strip legend and the run charts. */
export const ROLE_STYLE: Record<string, { label: string; dot: string; icon: string }> = {
  schema_listing: { label: "schema listing", dot: "bg-sky-500", icon: "☰" },
  schema_exploration: { label: "schema exploration", dot: "bg-violet-500", icon: "⌕" },
  data_inspection: { label: "data inspection", dot: "bg-amber-500", icon: "◎" },
  execution: { label: "execution", dot: "bg-orange-500", icon: "▶" },
  submission: { label: "submission", dot: "bg-emerald-600", icon: "✓" },
  other: { label: "other tool", dot: "bg-zinc-400", icon: "•" },
  message: { label: "message", dot: "bg-zinc-300", icon: "✎" },
  reasoning: { label: "reasoning", dot: "bg-slate-300", icon: "…" },
  error: { label: "error", dot: "bg-red-600", icon: "!" },
};

export function roleOf(step: { type: string; toolRole: string | null }): string {
  if (step.type === "tool_call") return step.toolRole ?? "other";
  return step.type;
}
