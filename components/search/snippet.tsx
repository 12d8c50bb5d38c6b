import { MARK_END, MARK_START } from "@/lib/search/marks";

/** A search snippet with its matches marked (`<mark>`), built from text: never HTML from the store. */
export function Snippet({ text }: { text: string }) {
  const parts = text.split(MARK_START);
  return (
    <span className="font-mono text-xs text-zinc-700">
      {parts.map((part, i) => {
        if (i === 0) return <span key={i}>{part}</span>;
        const [hit, rest = ""] = part.split(MARK_END);
        return (
          <span key={i}>
            <mark className="rounded bg-amber-200 px-0.5 text-zinc-900">{hit}</mark>
            {rest}
          </span>
        );
      })}
    </span>
  );
}
