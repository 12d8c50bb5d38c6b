/**
 * CSV through csv-stringify (RFC 4180, CRLF). Exports escape formulas: a text cell that starts with `=`, `+`, `-`,
 * `@`, a tab or a carriage return gets a leading `'`, so a question text like `=HYPERLINK(…)` stays text in a
 * spreadsheet (numbers are left alone). Unknown values are empty cells, never 0. Every field holding a line break
 * (a bare LF or CR too, as multi-line SQL has) is quoted: csv-stringify quotes only the record delimiter (CRLF) by
 * itself (issue 30: a final SQL over two lines became two rows). Pure.
 */
import { stringify } from "csv-stringify/sync";

const OPTIONS = {
  record_delimiter: "windows",
  quoted_match: /[\r\n]/,
  cast: { boolean: (b: boolean) => (b ? "true" : "false"), object: (o: object) => JSON.stringify(o) },
} as const;

export function toCsv(columns: string[], rows: unknown[][], { escapeFormulas = true } = {}): string {
  return stringify([columns, ...rows], { ...OPTIONS, escape_formulas: escapeFormulas });
}

/**
 * A CSV download, streamed a few hundred rows at a time from `rows` (never one string of the whole export). Rows may
 * come from an async source (a cursor over the store, batch by batch): the next batch is read only when the client
 * has taken the last one, so the server holds one batch, not the export.
 */
export function csvResponse(
  fileName: string,
  columns: string[],
  rows: Iterable<unknown[]> | AsyncIterable<unknown[]>,
): Response {
  const encoder = new TextEncoder();
  const iterator =
    Symbol.asyncIterator in rows
      ? (rows as AsyncIterable<unknown[]>)[Symbol.asyncIterator]()
      : (rows as Iterable<unknown[]>)[Symbol.iterator]();
  let header = true;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const batch: unknown[][] = header ? [columns] : [];
      header = false;
      for (let i = 0; i < 500; i++) {
        const next = await iterator.next();
        if (next.done) break;
        batch.push(next.value);
      }
      if (batch.length === 0) return controller.close();
      controller.enqueue(encoder.encode(stringify(batch, { ...OPTIONS, escape_formulas: true })));
    },
    async cancel() {
      await iterator.return?.();
    },
  });
  return new Response(stream, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${fileName.replace(/[^\w.-]+/g, "_")}"`,
    },
  });
}
