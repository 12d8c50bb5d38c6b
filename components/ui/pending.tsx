/** What a streamed section of a page shows while it loads. */
export function Pending({ what }: { what: string }) {
  return <p className="text-sm text-zinc-500">Loading {what}…</p>;
}
