/**
 * The text of search documents, read again from the store (the index keeps none): a trace's question and evidence,
 * final SQL or gold SQL, or a step's tool, arguments, message, error and result — as the indexers make them (the
 * words of JSON values, each document cut at METRON_SEARCH_MAX_CHARS). For the snippets of the hits a page shows.
 */
import type { Sql } from "@/lib/db/sql";
import { many, qb } from "@/lib/db/typed";
import { inJsonArray } from "@/lib/db/typed-sql";
import { searchLimits } from "./limits";
import { textOf } from "./snippets";

interface Doc {
  rowid: number | null;
  traceId: string;
  seq: number | null;
  field: string;
}

/** Results over this many characters are indexed raw, as their first characters (the indexers do the same). */
const DECODED_RESULT_MAX = 200_000;

export async function documentTexts<D extends Doc>(
  sql: Sql,
  docs: D[],
): Promise<{ rowid: number; doc: D; text: string; type?: string }[]> {
  const { maxChars } = searchLimits();
  const traceIds = [...new Set(docs.map((d) => d.traceId))];
  const q = qb(sql);
  const [traces, steps] = await Promise.all([
    docs.some((d) => d.seq === null)
      ? many(
          sql,
          q
            .selectFrom("traces")
            .select(["id", "question_text", "evidence", "final_sql", "gold_sql"])
            .where((eb) => inJsonArray(sql, eb, "id", traceIds)),
        )
      : [],
    docs.some((d) => d.seq !== null)
      ? many(
          sql,
          q
            .selectFrom("steps as s")
            .leftJoin("blobs as b", "b.hash", "s.result_blob")
            .select([
              "s.trace_id",
              "s.seq",
              "s.type",
              "s.tool",
              "s.args",
              "s.content",
              "s.error",
              "s.result",
              "b.content as blob",
            ])
            .where((eb) => inJsonArray(sql, eb, "s.trace_id", traceIds))
            // a page's shown documents: a few hundred values at most
            .where("s.seq", "in", [...new Set(docs.filter((d) => d.seq !== null).map((d) => d.seq!))]),
        )
      : [],
  ]);
  const traceOf = new Map(traces.map((t) => [t.id, t]));
  const stepOf = new Map(steps.map((s) => [`${s.trace_id}\u0000${s.seq}`, s]));
  const out: { rowid: number; doc: D; text: string; type?: string }[] = [];
  for (const d of docs) {
    if (d.rowid === null) continue;
    if (d.seq === null) {
      const t = traceOf.get(d.traceId);
      if (!t) continue;
      const text =
        d.field === "final_sql"
          ? (t.final_sql ?? "")
          : d.field === "gold_sql"
            ? (t.gold_sql ?? "")
            : `${t.question_text ?? ""} ${t.evidence ?? ""}`;
      out.push({ rowid: d.rowid, doc: d, text: text.slice(0, maxChars) });
    } else {
      const s = stepOf.get(`${d.traceId}\u0000${d.seq}`);
      if (!s) continue;
      const result =
        s.result ?? (s.blob && s.blob.length > DECODED_RESULT_MAX ? s.blob.slice(0, maxChars) : (s.blob ?? null));
      const resultText = s.result === null && s.blob && s.blob.length > DECODED_RESULT_MAX ? result : textOf(result);
      const text = [s.tool ?? "", textOf(s.args), s.content ?? "", s.error ?? "", resultText ?? ""].join(" ");
      out.push({ rowid: d.rowid, doc: d, text: text.slice(0, maxChars), type: s.type });
    }
  }
  return out;
}
