"use client";

import { createContext, useContext } from "react";
import { DEFAULT_LOCALE, formatsFor, type Formats } from "./format";

const LocaleContext = createContext(DEFAULT_LOCALE);

/** Hands the reader's locale, chosen on the server from the request, to every client component below it. */
export function LocaleProvider({ locale, children }: { locale: string; children: React.ReactNode }) {
  return <LocaleContext.Provider value={locale}>{children}</LocaleContext.Provider>;
}

/** The reader's number formats, in a client component. Server components take `readerFormats()` instead. */
export function useFormats(): Formats {
  return formatsFor(useContext(LocaleContext));
}

/** A count in the reader's locale (1,234 · 1.234 · 1 234). */
export function Count({ n }: { n: number }) {
  return <>{useFormats().count(n)}</>;
}

/** A duration in the reader's locale: milliseconds under a second, else seconds ("7 ms", "1.5 sec"). */
export function Duration({ ms }: { ms: number }) {
  return <>{useFormats().seconds(ms)}</>;
}

/** A share as a percentage in the reader's locale; "—" when there is no share. */
export function Percent({ share, digits }: { share: number | null; digits?: number }) {
  return <>{useFormats().percent(share, digits)}</>;
}

/** A token count, compact from 10,000 up (12k, 1.2M). */
export function Tokens({ n }: { n: number }) {
  return <>{useFormats().tokens(n)}</>;
}
