"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { isShortcut } from "@/components/ui/keys";
import { useEffect, useLayoutEffect, useRef, useState, useTransition } from "react";
import { setNavigating } from "./navigation-state";
import type { Neighbours } from "@/lib/db/queries/question-traces";

/** The run's neighbours of this question, as page paths, and the run's own path. */
export type NavLinks = Neighbours & { runHref: string };

/** Previous/next question and failing question (keys k/j), and a copy-link button. */
export function QuestionNav({ links }: { links: NavLinks }) {
  const router = useRouter();
  const [copied, setCopied] = useState(false);
  const navRef = useRef<HTMLElement>(null);
  // Moving to another question is a transition: until its content shows, label keys are refused (navigation-state).
  const [pending, startTransition] = useTransition();
  // At commit, not after paint: the next question's content and pending=false commit together, and a key pressed as
  // soon as it shows must find the flag already cleared (a passive effect ran later and refused it).
  useLayoutEffect(() => {
    setNavigating(pending);
  }, [pending]);
  useEffect(() => () => setNavigating(false), []);
  const go = (href: string) => {
    setNavigating(true);
    startTransition(() => router.push(href));
  };
  // Keyboard shortcuts subscribe to the document: an external system, hence the effect.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!isShortcut(e)) return;
      const href = e.key === "j" ? links.nextFailing : e.key === "k" ? links.prevFailing : undefined;
      if (!href) return;
      setNavigating(true);
      startTransition(() => router.push(href));
    };
    document.addEventListener("keydown", onKey);
    // Keys work from now on (before hydration a key went nowhere): said on the element, for tests and scripts.
    navRef.current?.setAttribute("data-keys", "ready");
    return () => document.removeEventListener("keydown", onKey);
  }, [links.nextFailing, links.prevFailing, router]);
  const link = (href: string | undefined, label: string, hint?: string) =>
    href ? (
      <Link
        href={href}
        className="rounded border border-zinc-300 bg-white px-2 py-1 hover:bg-zinc-50"
        title={hint}
        onClick={(e) => {
          if (e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || e.button !== 0) return; // a new tab or window
          e.preventDefault();
          go(href);
        }}
      >
        {label}
      </Link>
    ) : (
      <span className="rounded border border-zinc-200 px-2 py-1 text-zinc-500">{label}</span>
    );
  return (
    <nav ref={navRef} className="flex flex-wrap items-center gap-2 text-sm" aria-label="Questions">
      <Link href={links.runHref} className="text-blue-700 hover:underline">
        ← run
      </Link>
      {link(links.prev, "‹ previous")}
      {link(links.next, "next ›")}
      {link(links.prevFailing, "‹ previous failing", "key k")}
      {link(links.nextFailing, "next failing ›", "key j")}
      {/* A position in the run's order, not a question id (ids are often 0-based: "question 10" is the 11th). */}
      <span className="text-zinc-500" data-testid="question-position">
        {links.position} of {links.total} in this run
      </span>
      {pending && (
        <span role="status" className="text-xs text-amber-800" data-testid="question-loading">
          loading the question…
        </span>
      )}
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
