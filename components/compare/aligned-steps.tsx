import Link from "next/link";
import type { AlignStep, Alignment } from "@/lib/trace/align";

const KIND: Record<string, { label: string; className: string; sign: string }> = {
  same: { label: "same", className: "", sign: "=" },
  changed: { label: "changed", className: "bg-amber-50", sign: "≠" },
  "only-left": { label: "only left", className: "bg-sky-50", sign: "←" },
  "only-right": { label: "only right", className: "bg-violet-50", sign: "→" },
};

function StepCell({ step, href }: { step: AlignStep | null; href: (seq: number) => string }) {
  if (!step) return <td className="px-2 py-1 text-zinc-400">—</td>;
  const text = step.text?.replace(/\s+/g, " ") ?? "";
  return (
    <td className="max-w-0 px-2 py-1">
      <Link href={href(step.seq)} className="text-blue-700 hover:underline">
        {step.seq}. {step.tool}
      </Link>
      {step.tables.length > 0 && <span className="ml-1 text-zinc-600">[{step.tables.join(", ")}]</span>}
      {text && (
        <span className="block truncate font-mono text-zinc-600" title={text.slice(0, 2000)}>
          {text}
        </span>
      )}
    </td>
  );
}

/**
 * Two traces' tool calls aligned (lib/trace/align.ts): a row per matched pair or lone step, the first divergence
 * marked. Each step links to it in its own trace.
 */
export function AlignedSteps({
  alignment,
  left,
  right,
}: {
  alignment: Alignment;
  left: { label: string; href: (seq: number) => string };
  right: { label: string; href: (seq: number) => string };
}) {
  const a = alignment;
  return (
    <section className="space-y-2" aria-labelledby="aligned-heading" data-testid="aligned-steps">
      <h2 id="aligned-heading" className="font-semibold">
        Aligned steps
      </h2>
      <p className="text-xs text-zinc-600">
        Tool calls aligned on tool, tables touched and normalised SQL: {a.same} the same, {a.changed} changed (same tool
        and tables, other SQL or arguments), {a.onlyLeft} only left, {a.onlyRight} only right.{" "}
        {a.firstDivergence === null ? (
          "The two traces took the same steps."
        ) : (
          <a href="#first-divergence" className="text-blue-700 hover:underline">
            First divergence at row {a.firstDivergence + 1}
          </a>
        )}
      </p>
      <div className="max-h-[32rem] overflow-auto rounded-lg border border-zinc-200 bg-white">
        <table className="w-full table-fixed text-xs">
          <thead className="sticky top-0 border-b border-zinc-200 bg-zinc-50 text-left text-zinc-500">
            <tr>
              <th className="w-10 px-2 py-1">#</th>
              <th className="px-2 py-1">{left.label}</th>
              <th className="w-24 px-2 py-1">match</th>
              <th className="px-2 py-1">{right.label}</th>
            </tr>
          </thead>
          <tbody>
            {a.rows.map((r, i) => {
              const k = KIND[r.kind];
              const first = i === a.firstDivergence;
              return (
                <tr
                  key={i}
                  id={first ? "first-divergence" : undefined}
                  className={`border-b border-zinc-100 ${k.className} ${first ? "outline outline-2 outline-red-600" : ""}`}
                  data-kind={r.kind}
                >
                  <td className="px-2 py-1 text-zinc-500">{i + 1}</td>
                  <StepCell step={r.left} href={left.href} />
                  <td className="px-2 py-1">
                    <span aria-hidden="true">{k.sign} </span>
                    {k.label}
                    {first && (
                      <span className="ml-1 rounded bg-red-600 px-1 text-white" data-testid="first-divergence">
                        first divergence
                      </span>
                    )}
                  </td>
                  <StepCell step={r.right} href={right.href} />
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
