/** A trace's identity: SHA-256 of its canonical form (JSON with object keys sorted at every level). */
import { createHash, hash as sha } from "node:crypto";
import type { Step, Trace } from "./types";

/**
 * Whether `JSON.stringify` already writes `value` canonically: plain objects and arrays whose objects list their
 * keys in sorted order at every level (JSON that a writer emitted sorted, rows of results), holding only JSON's
 * primitives. Checking is much cheaper than building the string piece by piece.
 */
function stringifiesCanonically(value: object): boolean {
  if (Array.isArray(value)) {
    for (const v of value) {
      const t = typeof v;
      if (t === "object" ? v !== null && !stringifiesCanonically(v) : t === "function" || t === "symbol") return false;
    }
    return true;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  let previous: string | undefined;
  for (const k of Object.keys(value)) {
    if (previous !== undefined && previous > k) return false;
    previous = k;
    const v = (value as Record<string, unknown>)[k];
    const t = typeof v;
    if (t === "object" ? v !== null && !stringifiesCanonically(v as object) : t === "function" || t === "symbol")
      return false;
  }
  return true;
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (stringifiesCanonically(value)) return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++)
      out += (i ? "," : "") + canonicalJson(value[i] === undefined ? null : value[i]);
    return out + "]";
  }
  const keys = Object.keys(value).sort();
  let out = "{";
  let first = true;
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined) continue;
    out += (first ? "" : ",") + JSON.stringify(k) + ":" + canonicalJson(v);
    first = false;
  }
  return out + "}";
}

/** A step's free-form values as canonical JSON, computed once: hashed, then stored as is. */
export interface SerializedStep {
  args: string | null;
  result: string | null;
  /** SHA-256 of `result`, for results at or above the blob threshold (stored once, by this hash). */
  resultHash: string | null;
  meta: string | null;
}

const SEP = "\u0000"; // never inside JSON text, so pieces cannot run into each other

const str = (v: string | undefined) => (v === undefined ? "" : JSON.stringify(v));
const num = (v: number | undefined) => (v === undefined ? "" : String(v));

/**
 * The fixed fields of a step in a fixed (sorted) order: canonical without sorting at run time. One template, not an
 * array joined: the same text without an array per step.
 */
function stepFixedKey(step: Step): string {
  const u = step.usage;
  const usage = u
    ? `${num(u.cached_input_tokens)},${num(u.input_tokens)},${num(u.output_tokens)},${num(u.reasoning_tokens)}`
    : "";
  const error = step.error == null ? "" : JSON.stringify(step.error);
  return `${str(step.content)}${SEP}${num(step.duration_ms)}${SEP}${error}${SEP}${str(step.model)}${SEP}${str(step.role)}${SEP}${step.seq}${SEP}${str(step.started_at)}${SEP}${str(step.tool)}${SEP}${step.type}${SEP}${usage}`;
}

/**
 * The trace's id and its steps' JSON. The canonical form is the canonical JSON of the trace without its
 * steps, then for each step in order its fixed fields in sorted order, and the canonical JSON of `args`,
 * `meta` and `result` (a large result enters by its SHA-256), separated by NUL. The pieces are joined into one
 * string per trace (results under `blobThreshold` inline, larger ones by their hash, each hashed once; a line is at
 * most METRON_MAX_LINE_BYTES) and hashed in one call.
 */
export function serializeTrace(trace: Trace, blobThreshold = Infinity): { id: string; steps: SerializedStep[] } {
  const { steps, ...header } = trace;
  // The pieces joined, then hashed in one call: an update per step cost more in calls than the hashing (10 % of
  // this function on 40-step traces).
  let text = canonicalJson(header);
  const out: SerializedStep[] = new Array(steps.length);
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    const result = s.result === undefined ? null : canonicalJson(s.result);
    const step: SerializedStep = {
      args: s.args === undefined ? null : canonicalJson(s.args),
      result,
      resultHash: result !== null && result.length >= blobThreshold ? sha("sha256", result, "hex") : null,
      meta: s.meta === undefined ? null : canonicalJson(s.meta),
    };
    text += SEP + stepFixedKey(s) + SEP + (step.args ?? "") + SEP + (step.meta ?? "") + SEP + (step.resultHash ?? "");
    if (step.resultHash === null && result !== null) text += result;
    out[i] = step;
  }
  return { id: sha("sha256", text, "hex"), steps: out };
}

export function hashTrace(trace: Trace): string {
  return serializeTrace(trace).id;
}

/** Run ids already computed: an upload's traces name a few runs, and a hash per trace was 1 % of the ingest worker. */
const runIds = new Map<string, string>();

/** A run's id is stable across stores and re-ingests: it derives from its name, system and model. */
export function runIdOf(run: { name: string; system: string; model: string }): string {
  const key = JSON.stringify([run.name, run.system, run.model]);
  let id = runIds.get(key);
  if (id === undefined) {
    id = createHash("sha256").update(key).digest("hex").slice(0, 16);
    if (runIds.size >= 1000) runIds.clear();
    runIds.set(key, id);
  }
  return id;
}
