import { describe, expect, it } from "vitest";
import {
  crossValidate,
  figuresPerDatabase,
  frozenSplit,
  isDesignDatabase,
  pooledHeldOut,
  utility,
  worstFolds,
  type QuestionScore,
} from "./cross-validate";

const q = (database: string, recall: number, flagged: number | null, dataset = "d"): QuestionScore => ({
  dataset,
  database,
  recall,
  flagged,
});

describe("leave-one-database-out cross-validation", () => {
  it("scores each held-out database with the configuration chosen on the others", () => {
    // Config 0 is perfect on a and b but loses gold tables on c; config 1 is safe everywhere and flags less.
    const scores = [
      [q("a", 1, 0.9), q("b", 1, 0.9), q("c", 0.5, 0.9)],
      [q("a", 1, 0.5), q("b", 1, 0.5), q("c", 1, 0.5)],
    ];
    const cv = crossValidate(scores);
    // Holding out c, config 0 looks best on a and b: its held-out recall on c is what it really does there.
    expect(cv.folds.find((f) => f.database === "c")).toMatchObject({
      chosen: 0,
      figures: { recall: 0.5, flagged: 0.9 },
    });
    // Holding out a, c is among the training databases: config 0's loss there makes config 1 win.
    expect(cv.folds.find((f) => f.database === "a")).toMatchObject({ chosen: 1 });
    expect(cv.heldOut.d.recall).toBeCloseTo((1 + 1 + 0.5) / 3);
    // On everything, config 0: U = 0.9 − 4·(1/6) = 0.233 against config 1: 0.5.
    expect(cv.chosen).toBe(1);
    expect(cv.tunedOn.d).toMatchObject({ recall: 1, flagged: 0.5 });
  });

  it("weighs datasets equally, whatever their sizes", () => {
    const big = Array.from({ length: 100 }, () => q("x", 1, 1, "big"));
    expect(utility([...big, q("y", 0, 0, "small")])).toBeCloseTo((1 + (0 - 4)) / 2);
  });

  it("pools the held-out questions and names the worst database by flagging and by recall", () => {
    const scores = [
      [q("a", 1, 0.9), q("b", 1, 0.9), q("c", 0.5, 0.9)],
      [q("a", 1, 0.5), q("b", 1, 0.2), q("c", 1, 0.5)],
    ];
    const cv = crossValidate(scores);
    // Folds a and b choose config 1 (c's loss weighs on config 0), c chooses config 0.
    const pooled = pooledHeldOut(scores, cv);
    expect(pooled.recall).toBeCloseTo((1 + 1 + 0.5) / 3);
    expect(pooled.flagged).toBeCloseTo((0.5 + 0.2 + 0.9) / 3);
    const worst = worstFolds(cv);
    expect(worst.byFlagged.database).toBe("b");
    expect(worst.byRecall.database).toBe("c");
  });

  it("does not call a database whose every table is gold the worst at flagging (nothing there to flag)", () => {
    // Database "one" has a single table, gold in each of its questions: its flagging is not applicable, not 0.
    const scores = [[q("one", 1, null), q("one", 1, null), q("a", 1, 0.6), q("b", 0.5, 0.8)]];
    const cv = crossValidate(scores);
    expect(cv.folds.find((f) => f.database === "one")!.figures).toMatchObject({ flagged: 0, flaggedQuestions: 0 });
    expect(worstFolds(cv).byFlagged.database).toBe("a");
    expect(worstFolds(cv).byRecall.database).toBe("b");
  });

  it("gives each database's figures apart, the same name in two datasets kept apart", () => {
    const scores = [q("x", 1, 0.5), q("x", 0.5, null), q("x", 1, 1, "other"), q("y", 0, 0.25)];
    expect(figuresPerDatabase(scores)).toEqual([
      {
        dataset: "d",
        database: "x",
        figures: { questions: 2, recall: 0.75, flagged: 0.5, flaggedQuestions: 1, allGoldKept: 0.5 },
      },
      {
        dataset: "other",
        database: "x",
        figures: { questions: 1, recall: 1, flagged: 1, flaggedQuestions: 1, allGoldKept: 1 },
      },
      {
        dataset: "d",
        database: "y",
        figures: { questions: 1, recall: 0, flagged: 0.25, flaggedQuestions: 1, allGoldKept: 0 },
      },
    ]);
  });

  it("chooses on the design half only and scores the frozen choice on the other half", () => {
    // Config 0 wins on the design databases (x, y) and loses gold tables on the held-out one (z).
    const scores = [
      [q("x", 1, 0.9), q("y", 1, 0.9), q("z", 0.2, 0.9)],
      [q("x", 1, 0.5), q("y", 1, 0.5), q("z", 1, 0.5)],
    ];
    const split = frozenSplit(scores, (s) => s.database !== "z");
    expect(split.chosen).toBe(0);
    expect(split.design).toMatchObject({ recall: 1, flagged: 0.9, questions: 2 });
    expect(split.heldOut).toMatchObject({ recall: 0.2, flagged: 0.9, questions: 1 });
    expect(split.perDatabase).toEqual([{ dataset: "d", database: "z", figures: split.heldOut }]);
  });

  it("splits databases by a hash of their names, fixed before any result is read", () => {
    // SHA-256("bird-minidev/financial") starts with an even byte, ("bird-minidev/card_games") with an odd one.
    expect(isDesignDatabase("bird-minidev", "financial")).toBe(true);
    expect(isDesignDatabase("bird-minidev", "card_games")).toBe(false);
  });
});
