/** Sophrosyne-Oracle: every table the gold SQL does not read is irrelevant (the upper bound of directives). */
import type { DirectiveStrategy } from "./types";

export const oracleDirectives: DirectiveStrategy = async (question, database) => {
  if (!question.goldTables)
    throw new Error(`question ${question.id} has no gold tables: the oracle strategy needs them`);
  const gold = new Set(question.goldTables.map((t) => t.toLowerCase()));
  return {
    irrelevant: database.tables.map((t) => t.name).filter((t) => !gold.has(t.toLowerCase())),
    explanation: { strategy: "oracle", gold: question.goldTables },
  };
};
