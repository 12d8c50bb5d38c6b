import { describe, expect, it } from "vitest";
import { MARK_END as E, MARK_START as S } from "./marks";
import { fold, makeSnippet, textOf } from "./snippets";

describe("search snippets", () => {
  it("mark the words and phrases the index matched, case and accents aside, around the first match", () => {
    const text = "Wie viele Sänger gibt es? SELECT count(*) FROM sänger WHERE land = 'Frankreich' AND alter > 20";
    expect(makeSnippet(text, ["sanger"])).toBe(
      `Wie viele ${S}Sänger${E} gibt es? SELECT count(*) FROM ${S}sänger${E} WHERE land = 'Frankreich' AND alter…`,
    );
    expect(makeSnippet(text, ["land frankreich"])).toContain(`${S}land${E} = '${S}Frankreich${E}'`);
    // a phrase marks only where its words follow each other
    expect(makeSnippet("a b x a c b", ["a b"])).toBe(`${S}a${E} ${S}b${E} x a c b`);
    // no match: the start of the text, unmarked
    expect(makeSnippet("nothing here", ["zebra"])).toBe("nothing here");
    expect(fold("Ärger_2")).toBe("arger_2");
  });

  it("cut a long text to a window around the first match", () => {
    const words = Array.from({ length: 100 }, (_, i) => `w${i}`).join(" ");
    const s = makeSnippet(words, ["w50"]);
    expect(s.startsWith("…w46 ")).toBe(true);
    expect(s).toContain(`${S}w50${E}`);
    expect(s.endsWith("w59…")).toBe(true);
  });

  it("read the words of a stored JSON value as the indexers do, and other text as it is", () => {
    expect(textOf('{"query":"SELECT 1","max_rows":3,"deep":[{"x":true}]}')).toBe("SELECT 1 3 true");
    expect(textOf('"a\\nb"')).toBe("a\nb");
    expect(textOf("not json")).toBe("not json");
    expect(textOf(null)).toBe("");
  });
});
