"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { isShortcut } from "@/components/ui/keys";
import { useEffect, useState } from "react";
import type { Neighbours } from "@/lib/db/queries/question-traces";

/** The run's neighbours of this question, as page paths, and the run's own path. */
export type NavLinks = Neighbours & { runHref: string };

/** Previous/next question and failing question (keys k/j), and a copy-link button. */
export function QuestionNav({ links }: { links: NavLinks }) {
  const router = useRouter();
  const [copied, setCopied] = useState(false);
  // Keyboard shortcuts subscribe to the document: an external system, hence the effect.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!isShortcut(e)) return;
      if (e.key === "j" && links.nextFailing) router.push(links.nextFailing);
      if (e.key === "k" && links.prevFailing) router.push(links.prevFailing);
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [links.nextFailing, links.prevFailing, router]);
  const link = (href: string | undefined, label: string, hint?: string) =>
    href ? (
      <Link href={href} className="rounded border border-zinc-300 bg-white px-2 py-1 hover:bg-zinc-50" title={hint}>
        {label}
      </Link>
    ) : (
      <span className="rounded border border-zinc-200 px-2 py-1 text-zinc-500">{label}</span>
    );
  return (
    <nav className="flex flex-wrap items-center gap-2 text-sm" aria-label="Questions">
      <Link href={links.runHref} className="text-blue-700 hover:underline">
        ← run
      </Link>
      {link(links.prev, "‹ previous")}
      {link(links.next, "next ›")}
      {link(links.prevFailing, "‹ previous failing", "key k")}
      {link(links.nextFailing, "next failing ›", "key j")}
      <span className="text-zinc-500">
        question {links.position} of {links.total}
      </span>
      <button
        type="button"
        className="ml-auto rounded border border-zinc-300 bg-white px-2 py-1"
        onClick={() => void navigator.clipboard.writeText(window.location.href).then(() => setCopied(true))}
      >
        {copied ? "Link copied" : "Copy link"}
      </button>
    </nav>
  );
}
