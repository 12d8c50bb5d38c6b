"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

const LINKS = [
  { href: "/", label: "Runs" },
  { href: "/experiments", label: "Experiments" },
  { href: "/compare", label: "Compare" },
  { href: "/datasets", label: "Datasets" },
  { href: "/settings", label: "Settings" },
];

/** The site navigation; the current section carries aria-current. */
export function SiteNav() {
  const path = usePathname();
  const current = (href: string) => (href === "/" ? path === "/" || path.startsWith("/runs") : path.startsWith(href));
  return (
    <nav aria-label="Main" className="mx-auto flex max-w-7xl items-center gap-6 px-6 py-3 text-sm">
      <Link href="/" className="font-semibold tracking-tight text-zinc-900">
        Metron
      </Link>
      {LINKS.map((l) => (
        <Link
          key={l.href}
          href={l.href}
          aria-current={current(l.href) ? "page" : undefined}
          className={
            current(l.href)
              ? "font-medium text-zinc-900 underline underline-offset-4"
              : "text-zinc-600 hover:text-zinc-900"
          }
        >
          {l.label}
        </Link>
      ))}
      <a href="/api/schema/trace" className="text-zinc-600 hover:text-zinc-900">
        Trace schema
      </a>
      <Link href="/api-docs" className="text-zinc-600 hover:text-zinc-900">
        API
      </Link>
      <form action="/search" method="get" role="search" className="ml-auto">
        <input
          type="search"
          name="q"
          aria-label="Search traces"
          placeholder="Search: words, tool:, table:, outcome:"
          className="w-80 rounded border border-zinc-300 px-2 py-1"
        />
      </form>
    </nav>
  );
}
