/**
 * Numbers, percentages, compact counts, byte sizes, money and durations through the platform's own Intl formatting, in
 * the reader's locale (taken from the request's Accept-Language on the server and handed to the browser, so both render
 * the same text). "—" stands for a value that does not exist (no share of an empty set), never for 0.
 */
export type Formats = {
  locale: string;
  count: (n: number) => string;
  /** A count with its noun in the right number ("1 run", "2 runs", "1,030 jobs"): the nouns are English. */
  counted: (n: number, one: string, other?: string) => string;
  /** Token counts: compact (12k, 1.2M) from 10,000 up. */
  tokens: (n: number) => string;
  /** Compact whatever the size (5K, 10K, 1.2M). */
  compact: (n: number) => string;
  percent: (share: number | null, digits?: number) => string;
  /** A difference of two shares in percentage points, signed: "+12.3 pp", "−4.0 pp" (never "%"). */
  points: (delta: number | null, digits?: number) => string;
  bytes: (n: number) => string;
  usd: (v: number, digits?: number) => string;
  /** A duration: seconds, or milliseconds under one second (never "0 sec" for a step that took 4 ms). */
  seconds: (ms: number) => string;
  decimal: (v: number, digits: number) => string;
};

export const DEFAULT_LOCALE = "en-US";

const cache = new Map<string, Formats>();
const englishPlural = new Intl.PluralRules("en-US");

/** A locale tag the platform knows, or the default. */
export function supportedLocale(tag: string | null | undefined): string | null {
  if (!tag) return null;
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    return canonical && Intl.NumberFormat.supportedLocalesOf([canonical]).length ? canonical : null;
  } catch {
    return null;
  }
}

/** The reader's locale from an Accept-Language header: the most preferred tag Intl supports. */
export function localeFromAcceptLanguage(header: string | null | undefined): string | null {
  if (!header) return null;
  const ranked = header
    .split(",")
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const weight = q ? Number(q.slice(2)) : 1;
      return { tag: tag.trim(), weight: Number.isFinite(weight) ? weight : 0, i };
    })
    .filter((e) => e.tag && e.tag !== "*" && e.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.i - b.i);
  for (const e of ranked) {
    const locale = supportedLocale(e.tag);
    if (locale) return locale;
  }
  return null;
}

function unitFormat(locale: string, unit: string, digits: number) {
  return new Intl.NumberFormat(locale, { style: "unit", unit, unitDisplay: "short", maximumFractionDigits: digits });
}

export function formatsFor(localeTag: string): Formats {
  // By the tag as given first: every number cell asks, and checking a tag with Intl costs tens of µs (5 ms of a
  // home page with 50 runs).
  const byTag = cache.get(localeTag);
  if (byTag) return byTag;
  const locale = supportedLocale(localeTag) ?? DEFAULT_LOCALE;
  const hit = cache.get(locale);
  if (hit) {
    if (cache.size < 64) cache.set(localeTag, hit);
    return hit;
  }
  const count = new Intl.NumberFormat(locale);
  const compact = new Intl.NumberFormat(locale, { notation: "compact", maximumFractionDigits: 1 });
  const percents = new Map<number, Intl.NumberFormat>();
  const decimals = new Map<number, Intl.NumberFormat>();
  const dollars = new Map<number, Intl.NumberFormat>();
  const memo = (m: Map<number, Intl.NumberFormat>, d: number, make: () => Intl.NumberFormat) => {
    let f = m.get(d);
    if (!f) m.set(d, (f = make()));
    return f;
  };
  const byteUnits = [
    { min: 1e9, f: unitFormat(locale, "gigabyte", 2), scale: 1e9 },
    { min: 1e6, f: unitFormat(locale, "megabyte", 1), scale: 1e6 },
    { min: 1e3, f: unitFormat(locale, "kilobyte", 1), scale: 1e3 },
    { min: 0, f: unitFormat(locale, "byte", 0), scale: 1 },
  ];
  const secondsFormat = unitFormat(locale, "second", 1);
  const millisecondsFormat = unitFormat(locale, "millisecond", 1);
  const formats: Formats = {
    locale,
    count: (n) => count.format(n),
    counted: (n, one, other = `${one}s`) => `${count.format(n)} ${englishPlural.select(n) === "one" ? one : other}`,
    tokens: (n) => (Math.abs(n) >= 1e4 ? compact.format(n) : count.format(n)),
    compact: (n) => compact.format(n),
    percent: (share, digits = 1) =>
      share === null || Number.isNaN(share)
        ? "—"
        : memo(percents, digits, () =>
            Intl.NumberFormat(locale, {
              style: "percent",
              minimumFractionDigits: digits,
              maximumFractionDigits: digits,
            }),
          ).format(share),
    points: (delta, digits = 1) => {
      if (delta === null || Number.isNaN(delta)) return "—";
      const text = memo(decimals, digits, () =>
        Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits }),
      ).format(Math.abs(delta * 100));
      const zero = Number((delta * 100).toFixed(digits)) === 0;
      return `${zero ? "" : delta > 0 ? "+" : "−"}${text} pp`;
    },
    bytes: (n) => {
      const u = byteUnits.find((b) => Math.abs(n) >= b.min) ?? byteUnits[byteUnits.length - 1];
      return u.f.format(n / u.scale);
    },
    usd: (v, digits = Math.abs(v) < 1 ? 4 : 2) =>
      memo(dollars, digits, () =>
        Intl.NumberFormat(locale, {
          style: "currency",
          currency: "USD",
          minimumFractionDigits: digits,
          maximumFractionDigits: digits,
        }),
      ).format(v),
    seconds: (ms) =>
      Math.abs(ms) < 1000
        ? millisecondsFormat.format(Math.abs(ms) < 10 ? ms : Math.round(ms))
        : secondsFormat.format(ms / 1000),
    decimal: (v, digits) =>
      memo(decimals, digits, () =>
        Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits }),
      ).format(v),
  };
  cache.set(locale, formats);
  if (cache.size < 64) cache.set(localeTag, formats);
  return formats;
}
