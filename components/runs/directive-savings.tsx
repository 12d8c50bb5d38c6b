import Link from "next/link";
import { readerFormats } from "@/components/ui/reader-locale";
import type { DirectiveSavings } from "@/lib/environment/directive-savings";
import type { SavingsEstimate } from "@/lib/metrics/directive-savings";
import { runPath } from "@/lib/url/runs";

async function Line({ label, e }: { label: string; e: SavingsEstimate }) {
  const f = await readerFormats();
  if (e.traces === 0) return <li>{label}: needs gold tables and the question&apos;s database</li>;
  return (
    <li>
      {label}: <strong>{e.estimated === null ? "—" : f.percent(e.estimated)}</strong> over-exploration (estimate),
      saving {f.count(e.saved)} of {f.counted(e.exploratory, "exploratory call")} over {f.counted(e.traces, "trace")}
      {e.hiddenGold > 0 && (
        <span className="text-amber-800" data-testid="hidden-gold">
          {" "}
          · would have hidden {f.count(e.hiddenGold)} gold {e.hiddenGold === 1 ? "table" : "tables"} in{" "}
          {f.count(e.tracesHidingGold)} {e.tracesHidingGold === 1 ? "trace" : "traces"}
          {e.callsOnHiddenGold > 0 &&
            ` (${f.count(e.callsOnHiddenGold)} ${e.callsOnHiddenGold === 1 ? "call" : "calls"} on them not counted as saved)`}
        </span>
      )}
    </li>
  );
}

/** A run without directives: what oracle and computed directives would have saved, beside what such runs measured. */
export async function DirectiveSavingsPanel({ savings }: { savings: DirectiveSavings }) {
  const f = await readerFormats();
  return (
    <section
      className="rounded-lg border border-zinc-200 bg-white p-3 text-sm"
      data-testid="directive-savings"
      title="Each question's directives are computed offline; an exploratory call on flagged tables is counted as saved (an obedient agent would not make it), unless it reads a gold table: a directive hiding a gold table costs the answer, it saves nothing. An upper bound: it assumes the agent obeys and makes no other calls. No estimate exceeds the oracle's."
    >
      <h2 className="font-semibold">What directives would have saved</h2>
      <p className="text-xs text-zinc-500">
        Measured here without directives:{" "}
        {savings.oracle.measured === null ? "needs gold tables" : f.percent(savings.oracle.measured)} over-exploration.
        Estimates assume the agent obeys every directive.
      </p>
      <ul className="mt-1 list-disc pl-5">
        <Line label="Sophrosyne-Oracle directives" e={savings.oracle} />
        <Line label="Sophrosyne (computed) directives" e={savings.computed} />
      </ul>
      {savings.measuredRuns.length > 0 && (
        <p className="mt-1 text-xs text-zinc-600">
          Measured by runs of this dataset with directives:{" "}
          {savings.measuredRuns.map((r, i) => (
            <span key={`${r.id}-${r.strategy}`}>
              {i > 0 && "; "}
              <Link className="text-blue-700 hover:underline" href={runPath(r.id)}>
                {r.name}
              </Link>{" "}
              ({r.strategy}, {r.model}): {r.over === null ? "no gold tables" : f.percent(r.over)}
            </span>
          ))}
        </p>
      )}
    </section>
  );
}
