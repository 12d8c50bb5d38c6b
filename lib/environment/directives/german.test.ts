/**
 * Issue 34: German stems (Snowball, @nlpjs/lang-de) for German questions, on the real data: which questions count
 * as German (Spider-de's translated questions, none of BIRD mini-dev's), a Spider-de question whose word for the
 * table ("Lehrkräfte" for `lehrer`) only the German stem reaches, and English questions left exactly as they were;
 * a stem two table names share (wta_1's `spieler`, `spiele`) naming neither; and a question whose words meet no table
 * flagging nothing instead of every table.
 */
import { readFileSync } from "node:fs";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectiveExplanationPanel } from "@/components/traces/directive-explanation";
import { loadDatabaseFrom, loadQuestionFrom } from "@/lib/environment/database-info";
import { many, raw } from "@/lib/db/typed";
import { importBirdMiniDev } from "@/lib/testing/bird-minidev";
import { tempDb } from "@/lib/testing/db";
import { sharedData } from "@/lib/testing/shared-data";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { directivesFor } from ".";
import { buildKeywordIndex, compoundParts, DEFAULT_PARAMS, DirectiveMemo, plainKey, verbStems } from "./computed";
import { explainDirectives } from "./explain";
import { germanStem, isGerman } from "./keywords";

const store = tempDb();
const indexDir = () => path.join(store.dir, "indexes");
const withoutStems = { ...DEFAULT_PARAMS, germanStems: false };
// A question that meets no table flags nothing (keepAllWithoutEvidence): off here, so that what the stems alone keep shows.
const stemsAlone = { ...DEFAULT_PARAMS, keepAllWithoutEvidence: false };
const withoutStemsOrRule = { ...stemsAlone, germanStems: false };

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
    const on = (await directivesFor("computed", question, database, { indexDir: indexDir(), params: stemsAlone }))!;
    expect(on.irrelevant).not.toContain("lehrer");
    expect(on.explanation.compound_parts).toEqual(["lehr"]);
    expect(on.explanation.hits).toMatchObject({ lehr: ["lehrer"] });
    expect(on.explanation.params).toMatchObject({ germanStems: true });
    const off = (await directivesFor("computed", question, database, {
      indexDir: indexDir(),
      params: withoutStemsOrRule,
    }))!;
    expect(off.irrelevant).toContain("lehrer");
  });

  it("meet the singular and the plural of a word whose plural Snowball stems once (Kurs, Kurse)", async () => {
    // One pass of Snowball takes "kurse" to kurs and "kurs" to kur (an s after r is an ending too), so the question's
    // "Kurse" missed the table `kurs`, and without it the bridge `kurseinteilung` (a design-half database of the
    // frozen split). The stem is stemmed again until it stays.
    expect(germanStem("Kurse".toLowerCase())).toBe(germanStem("kurs"));
    expect(germanStem("kursen")).toBe(germanStem("kurs"));
    expect(germanStem("lehrkräfte")).toBe("lehrkraft"); // a stem that stays is left as it was
    const { question, database } = await loadQuestionFrom(store.sql, "spider-de", "395");
    expect(question.text).toContain("Kurse");
    expect([...question.goldTables!].sort()).toEqual(["kurs", "kurseinteilung", "lehrer"]);
    const r = (await directivesFor("computed", question, database, { indexDir: indexDir() }))!;
    expect(r.irrelevant).toEqual([]);
    expect(r.explanation.hits).toMatchObject({ kurse: ["kurs"] });
    expect(r.explanation.bridged).toEqual(["kurseinteilung"]);
  });

  it("reach the singular of a Latin plural the schema names (Museen, museum)", async () => {
    // "Wie viele Museen wurden nach 2013 oder vor 2008 eröffnet?": gold `museum`. Neither stemmer takes "museen" to
    // museum; the schema word museum is "muse" + "um", which a German plural in -en has as its singular.
    const { question, database } = await loadQuestionFrom(store.sql, "spider-de", "424");
    expect(question.text).toContain("Museen");
    expect(question.goldTables).toEqual(["museum"]);
    const r = (await directivesFor("computed", question, database, { indexDir: indexDir() }))!;
    expect(r.irrelevant).not.toContain("museum");
    expect(r.explanation.compound_parts).toContain("museum");
    expect(r.explanation.hits).toMatchObject({ museum: ["museum"] });
    // Only a German question: the same words in an English question look for no Latin singular.
    const index = buildKeywordIndex(database);
    expect(compoundParts(index, "How many Museen opened?", false)).not.toContain("museum");
    expect(compoundParts(index, question.text, true)).toContain("museum");
  });

  /** Spider-de question `id`'s directives with the shipped defaults, checked to keep its gold table `table`. */
  const keepsGold = async (id: string, table: string) => {
    const { question, database } = await loadQuestionFrom(store.sql, "spider-de", id);
    expect(question.goldTables).toContain(table);
    const r = (await directivesFor("computed", question, database, { indexDir: indexDir() }))!;
    expect(r.irrelevant).not.toContain(table);
    return r;
  };

  it("meet the verb a participle or weak past is made of (besuchten, besuch; eingestellt, einstellung)", async () => {
    // Snowball leaves a participle's ge- and a weak past's -t/-te/-ten on: "besuchten" stems to besucht, never the
    // table `besuch`; "eingestellt" to eingestellt, never `einstellung` (a design-half database each).
    expect(verbStems("am häufigsten besuchten Museums")).toContain(germanStem("besuch"));
    expect(verbStems("die eingestellt wurden")).toContain(germanStem("einstellung"));
    expect(verbStems("bestellt")).toContain(germanStem("bestellung"));
    // Words that only look like one: no participle prefix, no verb to take back.
    expect(verbStems("Daten der Stadt, Karten, Gesamtpunktzahl, Konzerte")).toEqual([]);
    for (const [id, table] of [
      ["417", "besuch"],
      ["283", "einstellung"],
    ] as const) {
      const r = await keepsGold(id, table);
      expect(r.explanation.named).toContain(table);
    }
  });

  it("find a participle's verb as the head of a compound the schema names (eingeteilt, kurseinteilung)", async () => {
    // "… die nicht für den Unterricht eingeteilt wurden": gold `kurseinteilung`, `lehrer` (a design-half database).
    // The verb of "eingeteilt" is einteil, the last part of the schema word kurseinteil(ung); German puts a
    // compound's head last, so the verb is looked for at the end of schema words only, and only when it is long
    // enough (six letters) not to end words by chance.
    const { question, database } = await loadQuestionFrom(store.sql, "spider-de", "405");
    expect(question.text).toContain("eingeteilt");
    expect([...question.goldTables!].sort()).toEqual(["kurseinteilung", "lehrer"]);
    const index = buildKeywordIndex(database);
    expect(verbStems(question.text)).toContain(germanStem("einteilen"));
    expect(compoundParts(index, question.text, true)).toContain(germanStem("kurseinteilung"));
    const r = (await directivesFor("computed", question, database, { indexDir: indexDir() }))!;
    expect(r.irrelevant).not.toContain("kurseinteilung");
    // The part is the table's whole name, so it names the table (and, were it not, the bridge between the `kurs`
    // its best column references and `lehrer` would keep it).
    expect(r.explanation.compound_parts).toContain(germanStem("kurseinteilung"));
    expect([...(r.explanation.named as string[]), ...(r.explanation.bridged as string[])]).toContain("kurseinteilung");
    // A shorter verb is no head: "geteilt" (teil) ends kurseinteil too, and is not looked for there.
    expect(verbStems("Welche Lehrer wurden geteilt?")).toEqual(["teil"]);
    expect(compoundParts(index, "Welche Lehrer wurden geteilt?", true)).not.toContain(germanStem("kurseinteilung"));
  });

  it("take a strong participle back to its verb (eingeschrieben, einschreibung; gewonnen, gewinner)", async () => {
    // A strong verb changes its vowel: ein-ge-schrieb-en is einschreiben's, ge-wonn-en gewinnen's (whose ge- is its
    // own). The verb's noun in -ung may lie inside a schema compound (einschreibungskurse_für_studenten).
    expect(verbStems("eingeschrieben")).toContain(germanStem("einschreiben"));
    expect(verbStems("die eingeschriebenen Schüler")).toContain(germanStem("einschreiben"));
    expect(verbStems("gewonnen")).toContain(germanStem("gewinner"));
    expect(verbStems("gefunden")).toContain(germanStem("finden"));
    // No ge-, no participle: an infinitive or a plural in -en is left alone.
    expect(verbStems("Spielen, Wettbewerben, Zeugnissen")).toEqual([]);
    for (const [id, table, part] of [
      ["541", "einschreibungskurse_für_studenten", "einschreibungskurs"],
      ["447", "spiele", "gewinn"],
    ] as const) {
      const r = await keepsGold(id, table);
      expect(r.explanation.compound_parts).toContain(part);
      expect((r.explanation.hits as Record<string, string[]>)[part]).toContain(table);
    }
  });

  it("find a question's word as the first part of a schema compound (Zeugnis, zeugnisinhalte)", async () => {
    // A German compound's first part says what it is about: `zeugnisinhalte` (transcript contents) is about a
    // Zeugnis, the column `teilnehmernummer` about a Teilnehmer. A question word of six letters or more that is no
    // schema word itself, and begins a longer one, finds it (student_transcripts_tracking and voter_1, design half).
    const r547 = await keepsGold("547", "zeugnisinhalte");
    expect(r547.explanation.compound_parts).toContain(germanStem("zeugnisinhalte"));
    // A part that is a table's whole name names that table: "Zeugnissen" (567) begins `zeugnisinhalte`, whose
    // columns' hits the references rule sends to the table they reference.
    const r567 = await keepsGold("567", "zeugnisinhalte");
    expect(r567.explanation.named).toContain("zeugnisinhalte");
    const r697 = await keepsGold("697", "wettbewerbe");
    expect(r697.explanation.compound_parts).toContain(germanStem("teilnehmernummer"));
    // A shorter word does not: "Kurse" (kurs) is no part of course_teach's `kurseinteilung` here.
    const { database } = await loadQuestionFrom(store.sql, "spider-de", "405");
    const index = buildKeywordIndex(database);
    expect(compoundParts(index, "Welche Kurse gibt es?", true)).not.toContain(germanStem("kurseinteilung"));
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
    expect(await recall(stemsAlone)).toBeGreaterThan((await recall(withoutStemsOrRule)) + 0.1);
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

it("let a German stem that two table names share name neither of them (wta_1: Spieler, Spiele)", async () => {
  // Snowball stems `spieler` (players) and `spiele` (matches) both to "spiel": "Spieler" named the matches too.
  expect(germanStem("spieler")).toBe(germanStem("spiele"));
  const players = await loadQuestionFrom(store.sql, "spider-de", "426"); // "Wie viele Spieler sind es?"
  expect(players.question.goldTables).toEqual(["spieler"]);
  const p = (await directivesFor("computed", players.question, players.database, { indexDir: indexDir() }))!;
  expect(p.explanation.named).toEqual(["spieler"]);
  expect(p.irrelevant).toContain("spiele");
  expect(p.irrelevant).not.toContain("spieler");
  const matches = await loadQuestionFrom(store.sql, "spider-de", "446"); // "Wie viele Spiele wurden … gespielt?"
  expect(matches.question.goldTables).toEqual(["spiele"]);
  const m = (await directivesFor("computed", matches.question, matches.database, { indexDir: indexDir() }))!;
  expect(m.explanation.named).toEqual(["spiele"]);
  expect(m.irrelevant).not.toContain("spiele");
});

describe("a question that meets no table (keepAllWithoutEvidence)", () => {
  const withoutRule = { ...DEFAULT_PARAMS, keepAllWithoutEvidence: false };

  it("flags nothing rather than every table, and says why", async () => {
    // "Wie viele Gymnasiasten gibt es?": gold `oberschüler`; no schema word of network_1 is in "Gymnasiasten".
    const { question, database } = await loadQuestionFrom(store.sql, "spider-de", "858");
    expect(question.goldTables).toEqual(["oberschüler"]);
    const tables = database.tables.map((t) => t.name);
    const on = (await directivesFor("computed", question, database, { indexDir: indexDir() }))!;
    expect(on.irrelevant).toEqual([]);
    expect(on.explanation).toMatchObject({ no_evidence: true, named: [], bridged: [], compound_parts: [] });
    const explained = explainDirectives(
      { strategy: "computed", irrelevant_tables: on.irrelevant },
      on.explanation,
      tables,
    )!;
    expect(explained.noEvidence).toBe(true);
    expect(explained.tables.filter((t) => t.flagged)).toEqual([]);
    // The question page's panel says so.
    const html = renderToStaticMarkup(createElement(DirectiveExplanationPanel, { explanation: explained }));
    expect(html).toContain(`Why these directives: ${tables.length} tables kept, 0 flagged`);
    expect(html).toContain("No phrase, schema word, name or value of this question met any table");
    const off = (await directivesFor("computed", question, database, { indexDir: indexDir(), params: withoutRule }))!;
    expect([...off.irrelevant].sort()).toEqual([...tables].sort());
    expect(off.explanation).toMatchObject({ no_evidence: false });
    // The panel's help sentence states the rule as this trace recorded it: on, off, or (older traces) not recorded.
    const ruleSentence = (recorded: unknown, irrelevant: string[]) => {
      const e = explainDirectives({ strategy: "computed", irrelevant_tables: irrelevant }, recorded, tables)!;
      const panel = renderToStaticMarkup(createElement(DirectiveExplanationPanel, { explanation: e }));
      return { rule: e.noEvidenceRule, sentence: /data-testid="no-evidence-rule">([^<]*)</.exec(panel)?.[1] };
    };
    expect(ruleSentence(on.explanation, on.irrelevant)).toMatchObject({
      rule: true,
      sentence: expect.stringContaining("nothing is flagged"),
    });
    expect(ruleSentence(off.explanation, off.irrelevant)).toMatchObject({
      rule: false,
      sentence: expect.stringContaining("computed with the no-evidence rule off"),
    });
    const older: Record<string, unknown> = { ...off.explanation };
    delete older.params;
    delete older.no_evidence;
    expect(ruleSentence(older, off.irrelevant)).toMatchObject({
      rule: null,
      sentence: expect.stringContaining("did not record whether the no-evidence rule was on"),
    });
  });

  it("changes only the questions that flagged every table (all of Spider-de)", async () => {
    const questions = await many(
      store.sql,
      raw<{ id: string }>`SELECT question_id AS id FROM questions
        WHERE dataset_id = 'spider-de' AND gold_tables IS NOT NULL`,
    );
    expect(questions.length).toBeGreaterThan(900);
    let changed = 0;
    for (const { id } of questions) {
      const { question, database } = await loadQuestionFrom(store.sql, "spider-de", id);
      const on = (await directivesFor("computed", question, database, { indexDir: indexDir() }))!;
      const off = (await directivesFor("computed", question, database, { indexDir: indexDir(), params: withoutRule }))!;
      if (on.explanation.no_evidence) {
        changed++;
        expect({ id, on: on.irrelevant, off: off.irrelevant.length }).toEqual({
          id,
          on: [],
          off: database.tables.length,
        });
      } else expect({ id, irrelevant: on.irrelevant }).toEqual({ id, irrelevant: off.irrelevant });
    }
    // Spider-de's questions whose words no schema word meets (22 with the shipped defaults on 2026-12-05).
    expect(changed).toBeGreaterThanOrEqual(10);
  });
});

it("give, with a memo shared across configurations (the bench's --cv), what computing each anew gives", async () => {
  // Spider-de (German) and BIRD mini-dev (English) questions, under configurations that differ in what the memo keeps
  // (phrases, German stems, the semantic half and its threshold) and in what it must not keep (bridging, values).
  const questions = await many(
    store.sql,
    raw<{ dataset: string; id: string }>`SELECT dataset_id AS dataset, question_id AS id FROM questions
      WHERE gold_tables IS NOT NULL AND (position % 16) = 0 ORDER BY dataset_id, position`,
  );
  expect(questions.length).toBeGreaterThan(70);
  // The defaults, and each parameter of the grid changed alone: a memo keyed without one of them fails here.
  const configs = [
    {},
    { maxPhrases: 8 },
    { tablesPerPhrase: 2 },
    { germanStems: false },
    { matchValues: false },
    { followReferences: false },
    { bridging: "need" as const, maxBridgeTables: 2 },
    { bridging: "none" as const },
    { keepAllWithoutEvidence: false },
    { semantic: true },
    { semantic: true, minSimilarity: 0.75 },
    { semantic: true, semanticMode: "fallback" as const },
  ].map((changed) => ({ ...DEFAULT_PARAMS, ...changed }));

  // Each question loaded once, as the bench does: the memo keeps a question's work by the question's object.
  const loaded = [];
  for (const { dataset, id } of questions)
    loaded.push({ dataset, id, ...(await loadQuestionFrom(store.sql, dataset, id)) });
  const memo = new DirectiveMemo();
  const outcomes = new Set<string>();
  for (const params of configs) {
    const flagged: string[][] = [];
    for (const { dataset, id, question, database } of loaded) {
      const anew = (await directivesFor("computed", question, database, { indexDir: indexDir(), params }))!;
      const kept = (await directivesFor("computed", question, database, {
        indexDir: indexDir(),
        params,
        deps: { memo },
      }))!;
      expect({ dataset, id, ...kept }).toEqual({ dataset, id, ...anew });
      flagged.push(anew.irrelevant);
    }
    outcomes.add(JSON.stringify(flagged));
  }
  // The comparison could fail: the configurations flag differently on these questions, and the memo was read.
  expect(outcomes.size).toBeGreaterThanOrEqual(10);
  expect(memo.hits).toBeGreaterThan(1000);
});

describe("a key column that names a role (the qualified-key rule)", () => {
  it("tells a column that only names what it references from one that qualifies it", () => {
    const plain = (column: string, refTable: string, refColumn: string) => plainKey({ column, refTable, refColumn });
    // Spider-de's and BIRD's own keys.
    expect(plain("mitarbeiter_id", "mitarbeiter", "mitarbeiter_id")).toBe(true);
    expect(plain("freund_id", "oberschüler", "id")).toBe(true); // another name for the student: speaks for it
    expect(plain("im_kampf_verloren", "schlacht", "id")).toBe(true);
    expect(plain("zielflughafen", "flughäfen", "flughafen_code")).toBe(false); // the destination airport
    expect(plain("quellflughafen", "flughäfen", "flughafen_code")).toBe(false);
    expect(plain("verursacht_durch_schiff_id", "schiff", "id")).toBe(false);
    expect(plain("OwnerUserId", "users", "Id")).toBe(false);
    expect(plain("UserId", "users", "Id")).toBe(true);
    expect(plain("atom_id2", "atom", "atom_id")).toBe(true); // a number is no role (BIRD toxicology)
    expect(plain("link_to_event", "event", "event_id")).toBe(true); // BIRD student_club's way of naming a key
    expect(plain("home_team_api_id", "Team", "team_api_id")).toBe(false); // BIRD european_football_2
  });

  it("keeps flight_2's flights for a question about the source or destination airport", async () => {
    for (const [id, word] of [
      ["224", "quellflughafen"],
      ["222", "zielflughafen"],
    ]) {
      const { question, database } = await loadQuestionFrom(store.sql, "spider-de", id);
      expect(question.goldTables).toContain("flüge");
      const r = (await directivesFor("computed", question, database, { indexDir: indexDir() }))!;
      expect(r.irrelevant).not.toContain("flüge");
      // The role lives in the flights, the airport that fills it in `flughäfen`: the hit speaks for both.
      expect((r.explanation.hits as Record<string, string[]>)[word]).toEqual(["flüge", "flughäfen"]);
      // The airports came through the flights' key column, and the question page says so; the flights did not.
      expect((r.explanation.hit_keys as Record<string, Record<string, string>>)[word]).toEqual({
        flughäfen: `flüge.${word}`,
      });
      const explained = explainDirectives(
        { strategy: "computed", irrelevant_tables: r.irrelevant },
        r.explanation,
        database.tables.map((t) => t.name),
      )!;
      const reasons = (table: string) => explained.tables.find((t) => t.table === table)!.reasons;
      expect(reasons("flughäfen")).toContainEqual(expect.objectContaining({ text: word, through: `flüge.${word}` }));
      expect(reasons("flüge")).toContainEqual(expect.objectContaining({ text: word, through: null }));
      const html = renderToStaticMarkup(createElement(DirectiveExplanationPanel, { explanation: explained }));
      expect(html).toContain(`through the key <span class="font-mono">flüge.${word}</span>`);
      // Only the airports carry it ("frequentierten zielflughafen" reaches them through the same key).
      const through = [...html.matchAll(/through the key <span class="font-mono">([^<]*)</g)].map((m) => m[1]);
      expect(through.length).toBeGreaterThan(0);
      expect(new Set(through)).toEqual(new Set([`flüge.${word}`]));
    }
  });

  it("says which key column a plain key's hit came through, and reads traces that did not record it", async () => {
    const { question, database } = await loadQuestionFrom(store.sql, "spider-de", "224");
    const r = (await directivesFor("computed", question, database, { indexDir: indexDir() }))!;
    // Every table a phrase reached through a key column is one that column refers to (declared or named after it).
    const keys = r.explanation.hit_keys as Record<string, Record<string, string>>;
    for (const [phrase, through] of Object.entries(keys))
      for (const [table, column] of Object.entries(through)) {
        expect((r.explanation.hits as Record<string, string[]>)[phrase]).toContain(table);
        expect(column.split(".")[0]).not.toBe(table);
      }
    // A trace written before the key columns were recorded, or with a malformed entry, explains as before.
    const older: Record<string, unknown> = { ...r.explanation };
    delete older.hit_keys;
    const broken = { ...r.explanation, hit_keys: { quellflughafen: { flughäfen: 7 } } };
    for (const recorded of [older, broken]) {
      const e = explainDirectives({ strategy: "computed", irrelevant_tables: r.irrelevant }, recorded, null)!;
      expect(e.tables.flatMap((t) => t.reasons).every((x) => x.through === null)).toBe(true);
      expect(e.tables.find((t) => t.table === "flughäfen")!.reasons.length).toBeGreaterThan(0);
    }
  });

  it("keeps what fills the role too (BIRD superhero's eye_colour_id, a made-up question: no gold query read)", async () => {
    const superhero = await loadDatabaseFrom(store.sql, "bird", "superhero");
    const question = {
      id: "q",
      dbId: "superhero",
      text: "How many superheroes have blue eyes?",
      evidence: null,
      goldSql: null,
      goldTables: null,
    };
    const r = (await directivesFor("computed", question, superhero, { indexDir: indexDir() }))!;
    expect((r.explanation.hits as Record<string, string[]>).eyes).toEqual(["superhero", "colour"]);
    expect(r.irrelevant).not.toContain("colour");
    expect(r.irrelevant).not.toContain("superhero");
  });
});

it("match a value stored without its spaces (student_transcripts_tracking's 'NorthCarolina')", async () => {
  const { question, database } = await loadQuestionFrom(store.sql, "spider-de", "546");
  expect(question.goldTables).toContain("adressen");
  const r = (await directivesFor("computed", question, database, { indexDir: indexDir() }))!;
  expect((r.explanation.value_hits as Record<string, string[]>)["north carolina"]).toEqual(["adressen"]);
  expect(r.irrelevant).not.toContain("adressen");
});
