/**
 * Assembles canonical traces from validated lines. Whole-trace lines are complete at once; event
 * lines (`kind: "trace"` / `kind: "step"`) are held by `trace_id` until the file ends, since a
 * log written while agents run may interleave them.
 */
import type { StepEvent, TraceEvent, TraceLine } from "./schema";
import { normalizeStep, normalizeTrace } from "./normalize";
import type { RunDefaults, Step, Trace } from "./types";

export interface AssembledTrace {
  trace: Trace;
  /** The line that completes or heads the trace, for error reports. */
  lineNo: number;
}

export interface AssemblyError {
  line: number;
  message: string;
}

interface Pending {
  header?: { event: TraceEvent; lineNo: number };
  steps: Map<number, { step: Step; lineNo: number }>;
  firstLine: number;
}

export class TraceAssembler {
  private pending = new Map<string, Pending>();

  constructor(
    private defaults: RunDefaults = {},
    private fallbackName = "unnamed run",
  ) {}

  /** A whole-trace line: returns its trace at once. */
  whole(line: TraceLine, lineNo: number): AssembledTrace {
    const steps = line.steps.map((s, i) => normalizeStep(s, i));
    return { trace: normalizeTrace(line, steps, this.defaults, this.fallbackName), lineNo };
  }

  /** An event line: held until `finish`. Returns an error for a repeated header or step. */
  event(line: TraceEvent | StepEvent, lineNo: number): AssemblyError | null {
    let p = this.pending.get(line.trace_id);
    if (!p) {
      p = { steps: new Map(), firstLine: lineNo };
      this.pending.set(line.trace_id, p);
    }
    if (line.kind === "trace") {
      if (p.header)
        return {
          line: lineNo,
          message: `trace_id "${line.trace_id}": header repeated (first on line ${p.header.lineNo}); ignored`,
        };
      p.header = { event: line, lineNo };
      return null;
    }
    const seen = p.steps.get(line.seq);
    if (seen)
      return {
        line: lineNo,
        message: `trace_id "${line.trace_id}": step seq ${line.seq} repeated (first on line ${seen.lineNo}); ignored`,
      };
    p.steps.set(line.seq, { step: normalizeStep(line, line.seq), lineNo });
    return null;
  }

  /** Completes the event traces; steps whose trace has no header are reported. */
  finish(): { traces: AssembledTrace[]; errors: AssemblyError[] } {
    const traces: AssembledTrace[] = [];
    const errors: AssemblyError[] = [];
    for (const [traceId, p] of this.pending) {
      if (!p.header) {
        const lines = [...p.steps.values()].map((s) => s.lineNo);
        for (const line of lines)
          errors.push({ line, message: `trace_id "${traceId}": step without a {"kind":"trace"} header line` });
        continue;
      }
      // Steps keep the seq the log gave them, so `directives.at_step` still points at its step.
      const steps = [...p.steps.values()].map((s) => s.step).sort((a, b) => a.seq - b.seq);
      const meta = { ...(p.header.event.meta ?? {}), trace_id: traceId };
      traces.push({
        trace: normalizeTrace({ ...p.header.event, meta }, steps, this.defaults, this.fallbackName),
        lineNo: p.header.lineNo,
      });
    }
    this.pending.clear();
    return { traces, errors };
  }
}
