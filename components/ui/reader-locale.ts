import { cache } from "react";
import { headers } from "next/headers";
import { DEFAULT_LOCALE, formatsFor, localeFromAcceptLanguage, supportedLocale, type Formats } from "./format";

/**
 * The locale numbers are written in: METRON_LOCALE when set (a lab that wants one house style), else the reader's
 * browser (Accept-Language), else en-US.
 */
export const readerLocale = cache(async (): Promise<string> => {
  const fixed = supportedLocale(process.env.METRON_LOCALE);
  if (fixed) return fixed;
  return localeFromAcceptLanguage((await headers()).get("accept-language")) ?? DEFAULT_LOCALE;
});

/** The reader's number formats, in a server component. */
export async function readerFormats(): Promise<Formats> {
  return formatsFor(await readerLocale());
}
