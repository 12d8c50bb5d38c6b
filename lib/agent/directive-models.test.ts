import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importBirdMiniDev } from "@/lib/testing/bird-minidev";
import { loadQuestionFrom } from "@/lib/environment/database-info";
import { directivesFor } from "@/lib/environment/directives";
import { DEFAULT_PARAMS } from "@/lib/environment/directives/computed";
import { tempDb } from "@/lib/testing/db";
import { startFakeOpenAI, type FakeServer } from "@/lib/testing/fake-openai";
import path from "node:path";
import { directiveDeps, parsePhrases } from "./directive-models";

const store = tempDb();
let fake: FakeServer;
beforeAll(async () => {
  await importBirdMiniDev(store);
  fake = await startFakeOpenAI([{ text: '```json\n["consumption", "customer segment", "year month date"]\n```' }]);
});
afterAll(async () => {
  await fake.close();
  store.cleanup();
});

describe("computed directives with a phrase model and an embedding model (fake OpenAI-compatible server)", () => {
  it("asks the cheap model for phrases, embeds the columns, and records both in the explanation", async () => {
    const deps = directiveDeps({
      ...process.env,
      METRON_OPENAI_COMPATIBLE_URL: fake.url,
      METRON_DIRECTIVE_MODEL: "compatible:cheap",
      METRON_EMBEDDING_MODEL: "compatible:embed",
    });
    const { question, database } = await loadQuestionFrom(store.sql, "bird", "1472"); // gold: customers, yearmonth
    const r = (await directivesFor("computed", question, database, {
      deps,
      indexDir: path.join(store.dir, "indexes"),
    }))!;
    expect(r.explanation).toMatchObject({
      phrase_source: "model",
      semantic: true,
      phrases: ["consumption", "customer segment", "year month date"],
    });
    expect(r.irrelevant).not.toContain("customers");
    expect(r.irrelevant).not.toContain("yearmonth");
    const chat = fake.requests.find((q) => Array.isArray(q.body.messages));
    expect(JSON.stringify(chat!.body.messages)).toContain("raw JSON array");
  });

  it("without a model: a hit on a column that references another table speaks for that table", async () => {
    // "How many posts does the user csgillespie own?" — gold posts, users. "user" matches comments.UserId and
    // posthistory.UserDisplayName as well as users.DisplayName: those columns name the users, not their own tables.
    const { question, database } = await loadQuestionFrom(store.sql, "bird", "537");
    const indexDir = path.join(store.dir, "indexes");
    const following = (await directivesFor("computed", question, database, { indexDir }))!;
    expect(following.irrelevant).not.toContain("users");
    expect(following.irrelevant).not.toContain("posts");
    expect(following.irrelevant).toEqual(expect.arrayContaining(["comments", "postHistory"]));
    const literal = (await directivesFor("computed", question, database, {
      indexDir,
      params: { ...DEFAULT_PARAMS, followReferences: false },
    }))!;
    expect(literal.irrelevant).not.toContain("comments");
  });

  it("parses the phrase answer strictly", () => {
    expect(parsePhrases('["a", "b"]')).toEqual(["a", "b"]);
    expect(() => parsePhrases("I think the columns are a and b")).toThrow(/JSON array/);
  });
});
