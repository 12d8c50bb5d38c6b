/**
 * Issue 34: German stems (Snowball, @nlpjs/lang-de) for German questions, on the real data: which questions count
 * as German (Spider-de's translated questions, none of BIRD mini-dev's), a Spider-de question whose word for the
 * table ("Lehrkräfte" for `lehrer`) only the German stem reaches, and English questions left exactly as they were.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDatabaseFrom, loadQuestionFrom } from "@/lib/environment/database-info";
import { many, raw } from "@/lib/db/typed";
import { importBirdMiniDev } from "@/lib/testing/bird-minidev";
import { tempDb } from "@/lib/testing/db";
import { sharedData } from "@/lib/testing/shared-data";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { directivesFor } from ".";
import { DEFAULT_PARAMS } from "./computed";
import { germanStem, isGerman } from "./keywords";

const store = tempDb();
const indexDir = () => path.join(store.dir, "indexes");
const withoutStems = { ...DEFAULT_PARAMS, germanStems: false };

beforeAll(async () => {
  await importSpiderDe(store);
  await importBirdMiniDev(store);
}, 120_000);
afterAll(() => store.cleanup());

it("counts Spider-de's translated questions as German and none of BIRD mini-dev's", () => {
  const de = JSON.parse(readFileSync(sharedData("spider-de", "dev.json"), "utf8")) as { question: string }[];
  const bird = JSON.parse(readFileSync(sharedData("bird-minidev", "mini_dev_sqlite.dev-split.json"), "utf8")) as {
    question: string;
    evidence: string;
  }[];
  expect(de.filter((q) => isGerman(q.question)).length).toBeGreaterThanOrEqual(1028);
  expect(bird.filter((q) => isGerman(`${q.question} ${q.evidence}`))).toEqual([]);
  // Snowball's stems: the plural and the inflected forms meet their table's and column's names.
  expect(germanStem("lehrkräfte")).toBe(germanStem("lehrkraft"));
  expect(germanStem("namen")).toBe(germanStem("name"));
});

describe("computed directives with German stems (Spider-de)", () => {
  it("keep the table a German question names in another form, and flag it without them", async () => {
    // "Wie viele Lehrkräfte gibt es?": gold `lehrer`. No English stem of the schema is inside "lehrkräfte"; the German
    // stem of `lehrer` ("lehr") is, so the compound rule searches it.
    const { question, database } = await loadQuestionFrom(store.sql, "spider-de", "377");
    expect(question.goldTables).toEqual(["lehrer"]);
    const on = (await directivesFor("computed", question, database, { indexDir: indexDir() }))!;
    expect(on.irrelevant).not.toContain("lehrer");
    expect(on.explanation.compound_parts).toEqual(["lehr"]);
    expect(on.explanation.hits).toMatchObject({ lehr: ["lehrer"] });
    expect(on.explanation.params).toMatchObject({ germanStems: true });
    const off = (await directivesFor("computed", question, database, {
      indexDir: indexDir(),
      params: withoutStems,
    }))!;
    expect(off.irrelevant).toContain("lehrer");
  });

  it("keep more of course_teach's gold tables over all its questions", async () => {
    const ids = await many(
      store.sql,
      raw<{ id: string }>`SELECT question_id AS id FROM questions
        WHERE dataset_id = 'spider-de' AND db_id = 'course_teach' AND gold_tables IS NOT NULL`,
    );
    expect(ids.length).toBeGreaterThan(20);
    const recall = async (params: typeof DEFAULT_PARAMS) => {
      let kept = 0;
      let gold = 0;
      for (const { id } of ids) {
        const { question, database } = await loadQuestionFrom(store.sql, "spider-de", id);
        const r = (await directivesFor("computed", question, database, { indexDir: indexDir(), params }))!;
        gold += question.goldTables!.length;
        kept += question.goldTables!.filter((t) => !r.irrelevant.includes(t)).length;
      }
      return kept / gold;
    };
    expect(await recall(DEFAULT_PARAMS)).toBeGreaterThan((await recall(withoutStems)) + 0.1);
  });
});

it("leave every English question (BIRD mini-dev) exactly as it was without them", async () => {
  const questions = await many(
    store.sql,
    raw<{ id: string; db: string }>`SELECT question_id AS id, db_id AS db FROM questions WHERE dataset_id = 'bird'`,
  );
  expect(questions.length).toBe(242);
  for (const { id, db } of questions) {
    const { question } = await loadQuestionFrom(store.sql, "bird", id);
    const database = await loadDatabaseFrom(store.sql, "bird", db);
    const on = (await directivesFor("computed", question, database, { indexDir: indexDir() }))!;
    const off = (await directivesFor("computed", question, database, { indexDir: indexDir(), params: withoutStems }))!;
    expect({ id, irrelevant: on.irrelevant }).toEqual({ id, irrelevant: off.irrelevant });
  }
});
