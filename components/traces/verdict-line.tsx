"use client";

import type { Verdict } from "@/lib/agent/verdict";
import type { Formats } from "@/components/ui/format";
import { useFormats } from "@/components/ui/locale";

const STYLE: Record<Verdict["kind"], string> = {
  fixed: "bg-emerald-100 text-emerald-900",
  "still right": "bg-emerald-50 text-emerald-800",
  regressed: "bg-red-100 text-red-900",
  "still wrong": "bg-red-50 text-red-800",
  unknown: "bg-zinc-100 text-zinc-700",
};
const SIGN: Record<Verdict["kind"], string> = {
  fixed: "↑",
  "still right": "=",
  regressed: "↓",
  "still wrong": "=",
  unknown: "?",
};

const signed = (f: Formats, n: number) => `${n > 0 ? "+" : n < 0 ? "−" : "±"}${f.count(Math.abs(n))}`;

/** A rerun's verdict against its original, with the over-exploration and token deltas (rerun minus original). */
export function VerdictLine({ verdict, testId }: { verdict: Verdict; testId?: string }) {
  const f = useFormats();
  return (
    <p className="flex flex-wrap items-center gap-2 text-sm" data-testid={testId}>
      <span className={`rounded px-1.5 py-0.5 font-medium ${STYLE[verdict.kind]}`}>
        <span aria-hidden="true">{SIGN[verdict.kind]} </span>
        {verdict.kind}
      </span>
      {verdict.reason && <span className="text-zinc-600">({verdict.reason})</span>}
      <span className="text-zinc-600">
        over-exploration{" "}
        {verdict.overExplorationDelta === null ? "not recorded" : `${signed(f, verdict.overExplorationDelta)} tables`}
        {" · "}tokens {verdict.tokensDelta === null ? "not recorded" : signed(f, verdict.tokensDelta)}
      </span>
    </p>
  );
}
