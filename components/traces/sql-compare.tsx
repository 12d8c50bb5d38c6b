import { diffWordsWithSpace } from "diff";
import { highlight } from "@/lib/highlight/highlight";
import { readerFormats } from "@/components/ui/reader-locale";
import { describeExtraction, extractSql } from "@/lib/sql/extract-sql";
import { formatSql } from "@/lib/sql/format";

const DIFF_MAX_CHARS = 40_000;

function Highlighted({ html }: { html: string }) {
  // Shiki escapes the SQL it highlights.
  return (
    <div
      className="overflow-x-auto text-xs [&_pre]:whitespace-pre-wrap [&_pre]:p-2"
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
}

/** Whether a diff part names one of the extra tables (quoted or not, qualified or not). */
function extraTableIn(text: string, extra: Set<string>): boolean {
  return text.split(/[^\p{L}\p{N}_$]+/u).some((w) => w && extra.has(w.toLowerCase()));
}

/** Final SQL against gold SQL: side by side, highlighted, and a word-level diff (rendered as text). */
export async function SqlCompare({
  traceId,
  finalSql: rawFinal,
  goldSql: rawGold,
  finalTables,
  goldTables,
  goldError,
  stacked = false,
}: {
  /** For the link to the whole text when a huge SQL is cut. */
  traceId?: string;
  finalSql: string | null;
  goldSql: string | null;
  finalTables: string[] | null;
  goldTables: string[] | null;
  goldError?: string;
  stacked?: boolean;
}) {
  const f = await readerFormats();
  // Measured and evaluated on the SQL inside a Markdown fence or after a label; the raw text stays in the trace.
  const extracted = rawFinal ? extractSql(rawFinal) : null;
  // Formatted (sql-formatter) before it is shown and diffed: a diff of clauses, not of spacing.
  const finalSql = extracted ? formatSql(extracted.sql) : null;
  const goldSql = rawGold ? formatSql(rawGold) : null;
  // Tables the final SQL reads that the gold SQL does not: a fault, marked as one in the diff.
  const extra = new Set(
    finalTables && goldTables
      ? finalTables
          .filter((t) => !goldTables.some((g) => g.toLowerCase() === t.toLowerCase()))
          .map((t) => t.toLowerCase())
      : [],
  );
  const caveat = describeExtraction(extracted?.extracted ?? null);
  const [finalHtml, goldHtml] = await Promise.all([
    finalSql
      ? highlight(finalSql, "sql", traceId && `/api/traces/${encodeURIComponent(traceId)}/text?field=final_sql`)
      : null,
    goldSql
      ? highlight(goldSql, "sql", traceId && `/api/traces/${encodeURIComponent(traceId)}/text?field=gold_sql`)
      : null,
  ]);
  // A word diff is O(N·D): bounded in input size and edit length, so one huge answer cannot stall the server.
  const diffable = finalSql && goldSql && finalSql.length + goldSql.length <= DIFF_MAX_CHARS;
  const parts = diffable
    ? (diffWordsWithSpace(goldSql, finalSql, { maxEditLength: 2000, timeout: 100 }) ?? null)
    : null;
  return (
    <section className="space-y-2" aria-label="Final SQL against gold SQL" data-testid="sql-compare">
      <h2 className="font-semibold">Final SQL against gold SQL</h2>
      {caveat && (
        <p className="rounded bg-amber-50 px-2 py-1 text-xs text-amber-900" data-testid="sql-extracted">
          Note: {caveat}; it is measured and evaluated as shown, and the raw answer is kept in the trace.
        </p>
      )}
      {goldError && (
        <p className="rounded bg-amber-50 px-2 py-1 text-xs text-amber-900" data-testid="gold-error">
          The gold SQL fails on the question&apos;s database ({goldError}): its gold tables are unknown, so gold-based
          metrics of this trace are not computed.
        </p>
      )}
      <div className={stacked ? "grid gap-3" : "grid gap-3 md:grid-cols-2"}>
        <div className="rounded-lg border border-zinc-200 bg-white" data-testid="final-sql">
          <p className="border-b border-zinc-100 px-2 py-1 text-xs text-zinc-500">
            Final SQL{finalTables ? ` · tables: ${finalTables.join(", ") || "none"}` : ""}
          </p>
          {finalHtml ? (
            <Highlighted html={finalHtml} />
          ) : (
            <p className="p-2 text-xs text-zinc-500">No final SQL: the agent did not submit.</p>
          )}
        </div>
        <div className="rounded-lg border border-zinc-200 bg-white" data-testid="gold-sql">
          <p className="border-b border-zinc-100 px-2 py-1 text-xs text-zinc-500">
            Gold SQL{goldTables ? ` · tables: ${goldTables.join(", ")}` : ""}
          </p>
          {goldHtml ? (
            <Highlighted html={goldHtml} />
          ) : (
            <p className="p-2 text-xs text-zinc-500">No gold SQL: link the run to its dataset.</p>
          )}
        </div>
      </div>
      {finalSql && goldSql && !parts && (
        <p className="text-xs text-zinc-500" data-testid="sql-diff-skipped">
          No word diff: the two queries are too long or too different to diff quickly (over {f.count(DIFF_MAX_CHARS)}{" "}
          characters together, or over 2,000 edits).
        </p>
      )}
      {parts && (
        <div className="rounded-lg border border-zinc-200 bg-white p-2" data-testid="sql-diff">
          {/* The legend is a line of its own: the diff starts on the next one (issue 30). */}
          <p className="mb-1 text-xs text-zinc-500" data-testid="sql-diff-legend">
            Diff: underlined, only in the final SQL; struck through, only in the gold SQL; ⚠ wavy red, a table the gold
            SQL does not read.
          </p>
          <div className="font-mono text-xs whitespace-pre-wrap" data-testid="sql-diff-body">
            {parts.map((p, i) =>
              // Marked by more than colour: an addition is underlined, a removal struck through (and said in the title).
              p.added && extra.size > 0 && extraTableIn(p.value, extra) ? (
                <ins
                  key={i}
                  className="bg-red-200 text-red-950 underline decoration-wavy decoration-2"
                  title="an extra table: the final SQL reads it, the gold SQL does not"
                  data-testid="sql-diff-extra"
                >
                  ⚠{p.value}
                </ins>
              ) : p.added ? (
                <ins
                  key={i}
                  className="bg-emerald-100 text-emerald-900 underline decoration-2"
                  title="only in the final SQL"
                >
                  {p.value}
                </ins>
              ) : p.removed ? (
                <del key={i} className="bg-red-100 text-red-900 line-through" title="only in the gold SQL">
                  {p.value}
                </del>
              ) : (
                <span key={i}>{p.value}</span>
              ),
            )}
          </div>
        </div>
      )}
    </section>
  );
}
