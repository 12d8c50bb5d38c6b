/**
 * A trace's id is its identity in every store (re-ingesting a file adds nothing; a rerun names its source): the ids
 * of real files' traces are pinned, so that a change to reading, normalizing or hashing that would give a trace a new
 * id fails here, not in a lab's store.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { adapt, detectFormat } from "@/lib/trace/adapters";
import { linkQuestion } from "@/lib/trace/adapters/link-questions";
import { TraceAssembler } from "@/lib/trace/assemble";
import { serializeTrace } from "@/lib/trace/hash";
import { parseLine } from "@/lib/trace/parse-line";
import { BLOB_THRESHOLD } from "./prepare";
import { realisticLines } from "@/lib/testing/realistic-traces";
import { sharedData } from "@/lib/testing/shared-data";

/** The ids of a file's canonical lines, whole traces and event lines alike, in the order they are read. */
function idsOf(lines: string[]): string[] {
  const assembler = new TraceAssembler({}, "file");
  const ids: string[] = [];
  lines.forEach((text, i) => {
    const parsed = parseLine(text, i + 1);
    if (!parsed.ok) throw new Error(`line ${i + 1}: ${parsed.error}`);
    if (parsed.line.kind === "trace" || parsed.line.kind === "step") assembler.event(parsed.line, i + 1);
    else ids.push(serializeTrace(assembler.whole(parsed.line, i + 1).trace, BLOB_THRESHOLD).id);
  });
  for (const { trace } of assembler.finish().traces) ids.push(serializeTrace(trace, BLOB_THRESHOLD).id);
  return ids;
}

const digest = (ids: string[]) => createHash("sha256").update(ids.join("\n")).digest("hex");

describe("trace ids of real files", () => {
  it("stay what they were for every trace the shared files' adapters give", () => {
    const dir = sharedData("traces");
    const lines: string[] = [];
    for (const sub of readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory())) {
      for (const name of readdirSync(`${dir}/${sub.name}`).sort()) {
        if (!/\.(jsonl?|json)$/.test(name)) continue;
        const text = readFileSync(`${dir}/${sub.name}/${name}`, "utf8");
        const format = detectFormat(text);
        if (!format) continue;
        for (const t of adapt(text, format, { fileName: name }).traces) {
          // As an upload stores it with no dataset (lib/ingest/ingest-auto.ts): the question id the link gives.
          const link = linkQuestion(t.question.id, t.question.text, undefined, [], JSON.stringify(t.steps));
          lines.push(JSON.stringify({ ...t, question: { ...t.question, id: link.id } }));
        }
      }
    }
    const ids = idsOf(lines);
    expect(ids.length).toBe(9);
    expect(new Set(ids).size).toBe(ids.length);
    expect(digest(ids)).toBe("28c7add4328eb2abe0d05e6cb2d434574f3b817e97e41fd5d5c93de868d3139c");
  });

  it("stay what they were for realistic lines with events, unknown fields and step meta", () => {
    const lines = realisticLines()
      .split("\n")
      .filter((l) => l.trim());
    const events = [
      { kind: "trace", trace_id: "e1", run: { name: "ev", system: "s", model: "m" }, question: { id: "q9" }, x: 1 },
      {
        kind: "step",
        trace_id: "e1",
        seq: 1,
        type: "tool_call",
        tool: "read_query",
        args: { query: "SELECT 1" },
        z: 2,
      },
      { kind: "step", trace_id: "e1", seq: 0, type: "reasoning", content: "hm", meta: { b: 1, a: 2 }, y: [1] },
    ].map((e) => JSON.stringify(e));
    const parses = (l: string) => {
      try {
        return Array.isArray(JSON.parse(l).steps) || JSON.parse(l).kind;
      } catch {
        return false;
      }
    };
    const ids = idsOf([...lines.filter(parses), ...events]);
    expect(ids.length).toBeGreaterThan(100);
    expect(digest(ids)).toBe("a9ba2326859303405a85489ea96fde4789b7ecb7ccbb12a2a1736a196417e24e");
  });
});
