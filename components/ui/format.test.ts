import { describe, expect, it } from "vitest";
import { formatsFor, localeFromAcceptLanguage } from "./format";

describe("the reader's locale", () => {
  it("takes the most preferred tag Intl supports from Accept-Language", () => {
    expect(localeFromAcceptLanguage("de-DE,de;q=0.9,en;q=0.8")).toBe("de-DE");
    expect(localeFromAcceptLanguage("en;q=0.5, fr-CH")).toBe("fr-CH");
    expect(localeFromAcceptLanguage("*;q=1, xx-invalid-tag-!!, ja;q=0.3")).toBe("ja");
    expect(localeFromAcceptLanguage("")).toBeNull();
    expect(localeFromAcceptLanguage(null)).toBeNull();
  });

  it("gives a tag as written and its canonical form the same formats, asked once or many times", () => {
    const first = formatsFor("de-de");
    expect(first.locale).toBe("de-DE");
    expect(formatsFor("de-de")).toBe(first); // kept by the tag as written: Intl is not asked again
    expect(formatsFor("de-DE")).toBe(first);
    expect(first.count(1234567)).toBe("1.234.567");
    for (let i = 0; i < 3; i++) expect(formatsFor("not a locale!").locale).toBe("en-US");
  });

  it("falls back to en-US for a tag it cannot use", () => {
    expect(formatsFor("not a locale!").locale).toBe("en-US");
  });
});

describe("numbers in the reader's locale", () => {
  const en = formatsFor("en-US");
  const de = formatsFor("de-DE");
  const fr = formatsFor("fr-FR");

  it("groups counts as the locale does", () => {
    expect(en.count(1234567)).toBe("1,234,567");
    expect(de.count(1234567)).toBe("1.234.567");
    // French groups with a narrow no-break space.
    expect(fr.count(1234567)).toBe("1\u202f234\u202f567");
  });

  it("writes percentages with the locale's decimal sign and spacing, and a missing share as —", () => {
    expect(en.percent(0.1234)).toBe("12.3%");
    expect(de.percent(0.1234)).toBe("12,3\u00a0%");
    expect(en.percent(0.5, 0)).toBe("50%");
    expect(en.percent(null)).toBe("—");
    expect(en.percent(Number.NaN)).toBe("—");
  });

  it("compacts token counts from 10,000 up only", () => {
    expect(en.tokens(9999)).toBe("9,999");
    expect(en.tokens(12345)).toBe("12.3K");
    expect(en.tokens(1_250_000)).toBe("1.3M");
    expect(de.tokens(1_250_000)).toBe("1,3\u00a0Mio.");
  });

  it("writes byte sizes, dollars and seconds with units", () => {
    expect(en.bytes(512)).toBe("512 byte");
    expect(en.bytes(1500)).toBe("1.5 kB");
    expect(en.bytes(2_500_000)).toBe("2.5 MB");
    expect(en.bytes(3_210_000_000)).toBe("3.21 GB");
    expect(en.usd(0.01234)).toBe("$0.0123");
    expect(en.usd(12.5)).toBe("$12.50");
    expect(de.usd(12.5)).toBe("12,50\u00a0$");
    expect(en.seconds(1530)).toBe("1.5 sec");
    // Under a second in milliseconds: a 5 ms trace is not "0 sec".
    expect(en.seconds(5)).toBe("5 ms");
    expect(en.seconds(0.25)).toBe("0.3 ms");
    expect(en.seconds(999.4)).toBe("999 ms");
    expect(en.seconds(0)).toBe("0 ms");
  });
});
