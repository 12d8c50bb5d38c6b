import type { Metadata } from "next";
import { NuqsAdapter } from "nuqs/adapters/next/app";
import { LocaleProvider } from "@/components/ui/locale";
import { readerLocale } from "@/components/ui/reader-locale";
import { SiteNav } from "@/components/ui/site-nav";
import { StoreHealthBanner } from "@/components/ui/store-health";
import { Suspense } from "react";
import { connection } from "next/server";
import { storeHealth } from "@/lib/db/health";
import { chartFont } from "./chart-font";
import "./globals.css";

export const metadata: Metadata = {
  title: "Metron",
  description: "Traces of text-to-SQL agents, measured against their gold tables",
};

/** The store's health, read per request (cached for 10 s), above every page. */
async function Health() {
  await connection();
  return <StoreHealthBanner health={await storeHealth()} />;
}

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  const locale = await readerLocale();
  return (
    <html lang="en" data-locale={locale} className={chartFont.variable}>
      <body className="min-h-screen font-sans">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-1.5 focus:shadow"
        >
          Skip to the content
        </a>
        <header className="border-b border-zinc-200 bg-white">
          <SiteNav />
        </header>
        <Suspense>
          <Health />
        </Suspense>
        <LocaleProvider locale={locale}>
          <NuqsAdapter>
            <main id="main" className="mx-auto max-w-7xl px-6 py-6">
              {children}
            </main>
          </NuqsAdapter>
        </LocaleProvider>
      </body>
    </html>
  );
}
