import type { Metadata } from "next";
import Link from "next/link";
import { NuqsAdapter } from "nuqs/adapters/next/app";
import "./globals.css";

export const metadata: Metadata = {
  title: "Metron",
  description: "Traces of text-to-SQL agents, measured against their gold tables",
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen font-sans">
        <header className="border-b border-zinc-200 bg-white">
          <nav className="mx-auto flex max-w-7xl items-center gap-6 px-6 py-3 text-sm">
            <Link href="/" className="font-semibold tracking-tight text-zinc-900">
              Metron
            </Link>
            <Link href="/" className="text-zinc-600 hover:text-zinc-900">
              Runs
            </Link>
            <Link href="/experiments" className="text-zinc-600 hover:text-zinc-900">
              Experiments
            </Link>
            <Link href="/compare" className="text-zinc-600 hover:text-zinc-900">
              Compare
            </Link>
            <Link href="/datasets" className="text-zinc-600 hover:text-zinc-900">
              Datasets
            </Link>
            <Link href="/settings" className="text-zinc-600 hover:text-zinc-900">
              Settings
            </Link>
            <a href="/api/schema/trace" className="text-zinc-600 hover:text-zinc-900">
              Trace schema
            </a>
          </nav>
        </header>
        <NuqsAdapter>
          <main className="mx-auto max-w-7xl px-6 py-6">{children}</main>
        </NuqsAdapter>
      </body>
    </html>
  );
}
