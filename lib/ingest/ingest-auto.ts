/**
 * Ingest whatever the researcher's agent wrote. Canonical JSONL streams straight into `ingestStream`; a foreign
 * file (detected from its content, or forced with `format`) is read whole — these formats are single JSON
 * documents or sessions that must be assembled — adapted to canonical traces, linked to its dataset's questions,
 * and then stored through the same `ingestStream`, so every trace is validated and measured alike.
 */
import type { Sql } from "@/lib/db/sql";
import { many, one, qb } from "@/lib/db/typed";
import { isUtf8 } from "node:buffer";
import { positiveNumber } from "@/lib/config/env";
import { scrubSecrets } from "@/lib/config/secrets";
import { adapt, detectFormat, LINE_FORMATS, looksCanonical } from "@/lib/trace/adapters";
import { evalZipToLog, isZip } from "@/lib/trace/adapters/inspect-zip";
import { linkQuestion, type LinkMethod } from "@/lib/trace/adapters/link-questions";
import { directivesFromSteps, type AdaptedTrace } from "@/lib/trace/adapters/types";
import { EmptyInputError, ingestStream, type IngestOptions, type IngestReport } from "./ingest";
import { streamAdapted, streamSpecFor } from "./stream-foreign";

export interface AutoOptions extends IngestOptions {
  /** "auto" (the default) detects the format from the content. */
  format?: string;
  /** The benchmark question of a single-session file whose content does not name it. */
  questionId?: string;
}

export interface AutoReport extends IngestReport {
  format: string;
  /** How foreign traces were linked to questions: method → count. */
  links: Partial<Record<LinkMethod, number>>;
}

const HEAD_BYTES = 64 * 1024;
const HEAD_MAX_BYTES = 64 * 1024 * 1024;

export class ForeignFileTooLargeError extends Error {}

const foreignLimit = () => positiveNumber("METRON_MAX_FOREIGN_BYTES", 512 * 1024 * 1024);

async function* prepend(head: Uint8Array[], rest: AsyncIterator<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield* head;
  for (;;) {
    const { value, done } = await rest.next();
    if (done) return;
    yield value;
  }
}

/** Counts the lines of bytes fed to it in pieces that hold more than white space, as "the file's lines" are said. */
class LineCounter {
  lines = 0;
  bytes = 0;
  private content = false; // whether the line under way holds anything but white space

  add(chunk: Uint8Array): void {
    this.bytes += chunk.byteLength;
    for (let start = 0; ;) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl;
      for (let i = start; !this.content && i < end; i++) {
        const b = chunk[i];
        if (b !== 32 && b !== 9 && b !== 13) this.content = true;
      }
      if (nl === -1) return;
      if (this.content) this.lines++;
      this.content = false;
      start = nl + 1;
    }
  }

  /** The figures once the last piece is in (a last line without a newline counts). */
  end(): { lines: number; bytes: number } {
    return { lines: this.lines + (this.content ? 1 : 0), bytes: this.bytes };
  }
}

/** Passes the chunks on, counting them: the file's own figures, not those of the traces made of it. */
async function* countInput(chunks: AsyncIterable<Uint8Array>, counter: LineCounter): AsyncIterable<Uint8Array> {
  for await (const chunk of chunks) {
    counter.add(chunk);
    yield chunk;
  }
}

export async function ingestAuto(
  sql: Sql,
  chunks: AsyncIterable<Uint8Array>,
  options: AutoOptions = {},
): Promise<AutoReport> {
  const iterator = chunks[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let size = 0;
  let done = false;
  // The head: 64 kB, or more until it holds a few complete lines (a canonical line can be megabytes long).
  let newlines = 0;
  while (size < HEAD_BYTES || (size < HEAD_MAX_BYTES && newlines < 2)) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    head.push(next.value);
    size += next.value.byteLength;
    for (let i = next.value.indexOf(10); i !== -1 && newlines < 2; i = next.value.indexOf(10, i + 1)) newlines++;
  }
  if (size === 0) throw new EmptyInputError();
  const headText = Buffer.concat(head).toString("utf8");
  const requested = options.format && options.format !== "auto" ? options.format : undefined;
  if (requested === "canonical" || (!requested && looksCanonical(headText))) {
    const report = await ingestStream(
      sql,
      done
        ? (async function* () {
            yield* head;
          })()
        : prepend(head, iterator),
      options,
    );
    return { ...report, format: "canonical", links: {} };
  }

  // A foreign file whose traces are elements of one array: streamed, element by element, in bounded memory.
  const spec = streamSpecFor(headText, requested);
  if (spec) {
    const warnings: { line: number; message: string }[] = [];
    const body = done
      ? (async function* () {
          yield* head;
        })()
      : prepend(head, iterator);
    const counter = new LineCounter();
    const report = await ingestAdapted(
      sql,
      streamAdapted(countInput(body, counter), spec, { fileName: options.fileName }, (w) => warnings.push(w)),
      options,
    );
    // The file's own lines and bytes, as for a file read whole (not its traces': issue 30).
    return { ...report, ...counter.end(), format: spec.format, warnings: [...warnings, ...report.warnings] };
  }

  // Any other foreign file: read it whole, within the limit.
  const limit = foreignLimit();
  const parts = [...head];
  while (!done) {
    const next = await iterator.next();
    if (next.done) break;
    parts.push(next.value);
    size += next.value.byteLength;
    if (size > limit)
      throw new ForeignFileTooLargeError(
        `the file is over ${limit} bytes, the limit for formats read whole (METRON_MAX_FOREIGN_BYTES)`,
      );
  }
  const bytes = Buffer.concat(parts);
  // An Inspect .eval (a zip) reads as the .json log it holds.
  const archive = isZip(bytes);
  // Invalid UTF-8 fails its line, not the file: in a line format the line is skipped, in a JSON document it is
  // decoded with replacement characters; either way a warning names the line.
  const badLines = archive || isUtf8(bytes) ? [] : invalidUtf8Lines(bytes);
  let text = archive ? JSON.stringify(await evalZipToLog(bytes)) : bytes.toString("utf8");
  const format = requested ?? detectFormat(text);
  const utf8Warnings = badLines.map((line) => ({
    line,
    message: LINE_FORMATS.has(format)
      ? "not valid UTF-8: the line was skipped"
      : "not valid UTF-8: decoded with replacement characters (U+FFFD)",
  }));
  if (badLines.length && LINE_FORMATS.has(format) && format !== "canonical") {
    const bad = new Set(badLines);
    text = text
      .split("\n")
      .map((l, i) => (bad.has(i + 1) ? "" : l))
      .join("\n");
  }
  if (format === "canonical") {
    const report = await ingestStream(
      sql,
      (async function* () {
        yield bytes;
      })(),
      options,
    );
    return { ...report, format, links: {} };
  }
  const adapted = adapt(text, format, { fileName: options.fileName });
  const report = await ingestAdapted(sql, adapted.traces, options);
  // The file's own lines (issue 30: a 16-line file was reported as "2 lines processed", its traces' count).
  // The file's own lines (an .eval's: of the log it holds) and bytes, counted as a streamed file's are.
  const counter = new LineCounter();
  counter.add(archive ? Buffer.from(text) : bytes);
  return {
    ...report,
    lines: counter.end().lines,
    bytes: bytes.length,
    format,
    warnings: [...utf8Warnings, ...adapted.warnings, ...report.warnings],
  };
}

/**
 * Stores traces an adapter made (a foreign file, spans from the OTLP endpoint): linked to their dataset's questions,
 * then through the same `ingestStream` as canonical lines, so every trace is validated and measured alike.
 */
export async function ingestAdapted(
  sql: Sql,
  traces: AdaptedTrace[] | AsyncIterable<AdaptedTrace>,
  options: AutoOptions = {},
): Promise<Omit<AutoReport, "format">> {
  const datasetRef = options.dataset ?? options.defaults?.benchmark;
  const dataset = datasetRef
    ? await one(
        sql,
        qb(sql)
          .selectFrom("datasets")
          .select("id")
          .where((eb) => eb.or([eb("id", "=", datasetRef), eb("name", "=", datasetRef)])),
      )
    : undefined;
  const questions = dataset
    ? await many(
        sql,
        qb(sql).selectFrom("questions").select(["question_id as id", "text"]).where("dataset_id", "=", dataset.id),
      )
    : [];
  const links: AutoReport["links"] = {};
  // A question id given at upload names the question of a file of one session.
  const single = Array.isArray(traces) && traces.length === 1;
  const lineOf = (t: AdaptedTrace) => {
    const link = linkQuestion(
      t.question.id,
      t.question.text,
      single ? options.questionId : undefined,
      questions,
      JSON.stringify({ meta: t.meta, started_at: t.started_at, steps: t.steps }),
    );
    links[link.method] = (links[link.method] ?? 0) + 1;
    // A foreign file or an OTLP export may carry a configured key (an echoed provider error): scrubbed on entry.
    return scrubSecrets(
      JSON.stringify({
        ...t,
        // A harness's trace through Metron's own environment carries its directives in list_tables' result.
        ...(!("directives" in t) && directivesFromSteps(t.steps) ? { directives: directivesFromSteps(t.steps) } : {}),
        run: { ...(t.run ?? {}), ...(dataset ? { benchmark: dataset.id } : {}) },
        question: { ...t.question, id: link.id },
        meta: { ...t.meta, question_link: { method: link.method, ...(link.matched ? { matched: link.matched } : {}) } },
      }),
    );
  };
  const unreadable: { line: number; message: string }[] = [];
  let position = 0;
  const report = await ingestStream(
    sql,
    (async function* () {
      // Streamed traces go on as they are adapted, in batches of lines.
      let batch: string[] = [];
      for await (const t of traces) {
        position++;
        let line: string;
        try {
          line = lineOf(t);
        } catch (e) {
          // Nesting past the stack: this trace fails alone, by its position among the file's traces.
          unreadable.push({
            line: position,
            message: `adapted trace ${position} could not be stored: ${(e as Error).message}`,
          });
          batch.push(""); // a blank line in its place keeps the later traces' numbers
          continue;
        }
        batch.push(line);
        if (batch.length >= 64) {
          yield Buffer.from(batch.join("\n") + "\n");
          batch = [];
        }
      }
      if (batch.length) yield Buffer.from(batch.join("\n") + "\n");
    })(),
    options,
  );
  const measured = report.warnings.map((w) => ({ line: w.line, message: `adapted trace ${w.line}: ${w.message}` }));
  const errors = [...report.errors, ...unreadable].sort((a, b) => a.line - b.line);
  return { ...report, errors, error_count: report.error_count + unreadable.length, warnings: measured, links };
}

/** 1-based numbers of the lines that are not valid UTF-8. */
function invalidUtf8Lines(bytes: Buffer): number[] {
  const bad: number[] = [];
  let start = 0;
  for (let line = 1; start <= bytes.length; line++) {
    let end = bytes.indexOf(10, start);
    if (end === -1) end = bytes.length;
    if (!isUtf8(bytes.subarray(start, end))) bad.push(line);
    start = end + 1;
  }
  return bad;
}
