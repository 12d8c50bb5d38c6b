"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";

/** Promotes a rerun into a run of its own system and model, where it then counts (by default "Promoted reruns"). */
export function PromoteRerun({ traceId }: { traceId: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      className="flex items-center gap-1 text-xs"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(null);
        const run = String(new FormData(e.currentTarget).get("run") ?? "");
        const res = await fetch(`/api/traces/${encodeURIComponent(traceId)}/promote`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ run }),
        });
        const body = await res.json().catch(() => ({}));
        if (!res.ok) setError(body.error ?? `HTTP ${res.status}`);
        else router.refresh();
      }}
    >
      <input
        name="run"
        defaultValue="Promoted reruns"
        aria-label="Run to promote this rerun into"
        className="w-36 rounded border border-zinc-300 px-1 py-0.5"
      />
      <button type="submit" className="rounded border border-zinc-300 px-2 py-0.5" title="count this rerun in that run">
        Promote
      </button>
      {error && (
        <span role="alert" className="text-red-700">
          {error}
        </span>
      )}
    </form>
  );
}
