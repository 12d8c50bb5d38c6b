import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { DEMO_QUESTIONS } from "@/lib/demo/questions";
import { demoDdl } from "@/lib/demo/schema";
import { seededRandom } from "@/lib/metrics/stats";
import { wrongVariant } from "./simulated";

describe("the simulated policy's wrong answers", () => {
  it("are valid SQL that differs from the gold SQL, for every demo question and both kinds of mistake", () => {
    const db = new Database(":memory:");
    db.exec(demoDdl());
    for (const q of DEMO_QUESTIONS) {
      for (const [seed, distractor] of [
        [1, "payments"],
        [2, "payments"],
        [3, undefined],
        [4, "reviews"],
      ] as const) {
        const sql = wrongVariant(q.sql, distractor, seededRandom(seed));
        expect(sql, `question ${q.id}`).not.toBe(q.sql);
        expect(() => db.prepare(sql), `question ${q.id}: ${sql}`).not.toThrow();
      }
    }
    // A joined distractor lands after the FROM table, never after a keyword.
    expect(wrongVariant("SELECT count(*) FROM customers WHERE segment = 'vip'", "payments", () => 0)).toBe(
      `SELECT count(*) FROM customers CROSS JOIN "payments" AS extra_t WHERE segment = 'vip'`,
    );
    db.close();
  });
});
