/** A trace's identity: SHA-256 of its canonical form (JSON with object keys sorted at every level). */
import { createHash } from "node:crypto";
import type { Trace } from "./types";

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i ? "," : "") + canonicalJson(value[i] === undefined ? null : value[i]);
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

export function hashTrace(trace: Trace): string {
  return createHash("sha256").update(canonicalJson(trace)).digest("hex");
}

/** A run's id is stable across stores and re-ingests: it derives from its name, system and model. */
export function runIdOf(run: { name: string; system: string; model: string }): string {
  return createHash("sha256").update(JSON.stringify([run.name, run.system, run.model])).digest("hex").slice(0, 16);
}
