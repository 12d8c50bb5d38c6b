/**
 * The reading half of an ingest: byte stream → lines → `parseLine` → assembled traces, each handed to a sink with
 * its line number; a line that fails is handed to the sink's `fail` with its reason and never stops the others.
 * Runs on the main thread for small inputs and in the ingest worker (ingest-worker.ts) for large ones.
 */
import { describeExtraction, extractSql } from "@/lib/sql/extract-sql";
import { TraceAssembler } from "@/lib/trace/assemble";
import { parseLine } from "@/lib/trace/parse-line";
import type { StepEvent, TraceEvent } from "@/lib/trace/schema";
import type { RunDefaults, Trace } from "@/lib/trace/types";
import { splitLines, type SplitProgress } from "./split-lines";

export interface TraceSink {
  /** May return a promise (a writer that awaits its store): the next trace waits for it. */
  trace(trace: Trace, line: number): void | Promise<void>;
  fail(line: number, message: string): void;
  /** A line stored with something left out, said in the report (issue 28: never dropped silently). */
  warn?(line: number, message: string): void;
  /** Called after every line. */
  line?(): void;
  /**
   * Event lines (`{"kind":"trace"}` headers and `{"kind":"step"}` lines) handed over as they come instead of being
   * assembled here: a worker of a pool reads one block of the file, and a trace's events may lie in several blocks.
   */
  event?(line: TraceEvent | StepEvent, lineNo: number): void;
}

export interface ReadOptions {
  defaults?: RunDefaults;
  /** The run name of traces whose file does not name their run. */
  fallbackName: string;
  maxLineBytes: number;
  /** The number of the input's first line (a block of a file: docs/architecture.md, the ingest's pool). */
  firstLine?: number;
}

/** What a per-line failure says: a stack overflow is deep nesting, anything else its own message. */
export function lineFailure(e: unknown): string {
  if (e instanceof RangeError && /call stack/i.test(e.message))
    return "the JSON nests too deeply to process (a value inside thousands of arrays or objects)";
  return (e as Error).message ?? String(e);
}

/** A key JavaScript objects cannot hold as a field: JSON.parse keeps it, but no copy of the object does. */
const PROTO_KEY = /"__proto__"\s*:/;
const PROTO_WARNING = 'a key "__proto__" was left out: it cannot be stored as a field (rename it to keep it)';

/** The caveat a trace is stored with: its final SQL was taken out of a Markdown fence or from after a label. */
export function finalSqlCaveat(trace: Trace): string | null {
  return trace.final_sql ? describeExtraction(extractSql(trace.final_sql).extracted) : null;
}

/** Reads every line; `progress` counts bytes and lines as it goes. */
export async function readTraces(
  chunks: AsyncIterable<Uint8Array>,
  options: ReadOptions,
  progress: SplitProgress,
  sink: TraceSink,
): Promise<void> {
  const assembler = new TraceAssembler(options.defaults, options.fallbackName);
  for await (const raw of splitLines(chunks, options.maxLineBytes, progress, options.firstLine)) {
    if ("error" in raw) {
      sink.fail(raw.lineNo, raw.error);
    } else {
      let parsed: ReturnType<typeof parseLine> | undefined;
      try {
        parsed = parseLine(raw.text, raw.lineNo);
      } catch (e) {
        sink.fail(raw.lineNo, lineFailure(e));
      }
      if (parsed?.ok && PROTO_KEY.test(raw.text)) sink.warn?.(raw.lineNo, PROTO_WARNING);
      if (!parsed) {
        // reported above
      } else if (!parsed.ok) sink.fail(parsed.lineNo, parsed.error);
      else if (parsed.line.kind === "trace" || parsed.line.kind === "step") {
        if (sink.event) {
          sink.event(parsed.line, parsed.lineNo);
          sink.line?.();
          continue;
        }
        const err = assembler.event(parsed.line, parsed.lineNo);
        if (err) sink.fail(err.line, err.message);
      } else {
        let assembled: ReturnType<TraceAssembler["whole"]> | undefined;
        try {
          assembled = assembler.whole(parsed.line, parsed.lineNo);
        } catch (e) {
          sink.fail(parsed.lineNo, lineFailure(e));
        }
        if (assembled) {
          const pending = sink.trace(assembled.trace, parsed.lineNo);
          if (pending) await pending;
        }
      }
    }
    sink.line?.();
  }
  if (progress.lines === 0) return;
  const assembled = assembler.finish();
  for (const err of assembled.errors) sink.fail(err.line, err.message);
  for (const { trace, lineNo } of assembled.traces) {
    const pending = sink.trace(trace, lineNo);
    if (pending) await pending;
  }
}
