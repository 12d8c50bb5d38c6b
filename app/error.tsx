"use client";

import Link from "next/link";

/** A page that failed: what happened, in words, and a retry. Nothing of the store was changed by showing this. */
export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div className="space-y-3" role="alert">
      <h1 className="text-xl font-semibold">This page could not be shown</h1>
      <p className="text-sm text-zinc-700">{error.message || "The server hit an error while reading the store."}</p>
      {error.digest && <p className="text-xs text-zinc-500">Reference for the server log: {error.digest}</p>}
      <div className="flex gap-3 text-sm">
        <button type="button" onClick={reset} className="rounded bg-zinc-900 px-3 py-1.5 text-white">
          Try again
        </button>
        <Link href="/" className="rounded border border-zinc-300 px-3 py-1.5">
          Back to the runs
        </Link>
      </div>
    </div>
  );
}
