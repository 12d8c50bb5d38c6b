"use client";

import { useState, useTransition } from "react";

type Promote = (
  traceId: string,
  run: string,
) => Promise<{ ok: true; runId: string; sample: number } | { ok: false; error: string }>;

/**
 * Promotes a rerun into a run of its own system and model, where it then counts (by default "Promoted reruns"),
 * through the page's server action (it refreshes the page's reruns).
 */
export function PromoteRerun({ traceId, promote }: { traceId: string; promote: Promote }) {
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  return (
    <form
      className="flex items-center gap-1 text-xs"
      action={(form) =>
        startTransition(async () => {
          setError(null);
          const r = await promote(traceId, String(form.get("run") ?? "")).catch((e: Error) => ({
            ok: false as const,
            error: e.message,
          }));
          if (!r.ok) setError(r.error);
        })
      }
    >
      <input
        name="run"
        defaultValue="Promoted reruns"
        aria-label="Run to promote this rerun into"
        className="w-36 rounded border border-zinc-300 px-1 py-0.5"
      />
      <button
        type="submit"
        disabled={pending}
        className="rounded border border-zinc-300 px-2 py-0.5"
        title="count this rerun in that run"
      >
        {pending ? "Promoting…" : "Promote"}
      </button>
      {error && (
        <span role="alert" className="text-red-700">
          {error}
        </span>
      )}
    </form>
  );
}
