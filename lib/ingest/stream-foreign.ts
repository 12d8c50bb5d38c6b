/**
 * Foreign files whose traces sit in one big array — LiveSQLBench's `results[*]`, Inspect's `samples[*]`, a JSON array
 * of Spider-Agent rollouts — read element by element with a streaming JSON parser (@streamparser/json), so a 2 GB
 * file ingests in bounded memory: each element is adapted alone (with the document's top-level fields seen before
 * it), linked to its question and handed to the ingest as one canonical line. Other formats are read whole.
 */
import { JSONParser } from "@streamparser/json";
import { adapt } from "@/lib/trace/adapters";
import type { AdaptedTrace } from "@/lib/trace/adapters/types";

export interface StreamSpec {
  format: string;
  /** The array to stream, and the top-level fields each element's document keeps. */
  items: string;
  top: string[];
  /** A one-element document the format's adapter reads. */
  wrap: (item: unknown, top: Record<string, unknown>) => unknown;
}

const SPECS: { test: (head: string) => boolean; spec: StreamSpec }[] = [
  {
    test: (h) => /^\s*\{/.test(h) && /"results"\s*:\s*\[/.test(h) && /"tool_trajectory"\s*:/.test(h),
    spec: {
      format: "livesqlbench",
      items: "$.results.*",
      top: ["$.mode", "$.model", "$.config"],
      wrap: (item, top) => ({ ...top, results: [item] }),
    },
  },
  {
    test: (h) => /^\s*\{/.test(h) && /"eval"\s*:\s*\{/.test(h) && /"samples"\s*:\s*\[/.test(h),
    spec: {
      format: "inspect",
      items: "$.samples.*",
      top: ["$.version", "$.eval", "$.plan"],
      wrap: (item, top) => ({ ...top, samples: [item] }),
    },
  },
  {
    test: (h) => /^\s*\[\s*\{/.test(h) && /"conversation"\s*:\s*\[/.test(h.slice(0, 16384)),
    spec: { format: "openai-messages", items: "$.*", top: [], wrap: (item) => [item] },
  },
];

/** The streaming reading of a file whose first bytes are `head`, when its format has one (and matches `requested`). */
export function streamSpecFor(head: string, requested?: string): StreamSpec | null {
  const body = head.replace(/^\uFEFF/, "");
  const hit = SPECS.find((s) => s.test(body) && (!requested || requested === s.spec.format));
  return hit?.spec ?? null;
}

/** Adapted traces, one element at a time, with the adapter's warnings numbered by element. */
export async function* streamAdapted(
  chunks: AsyncIterable<Uint8Array>,
  spec: StreamSpec,
  context: { fileName?: string },
  onWarning: (w: { line: number; message: string }) => void,
): AsyncGenerator<AdaptedTrace> {
  const parser = new JSONParser({ paths: [spec.items, ...spec.top], keepStack: false });
  const top: Record<string, unknown> = {};
  const ready: AdaptedTrace[] = [];
  let index = 0;
  parser.onValue = ({ value, key, stack }) => {
    // A top-level field (depth 1) is kept for the elements after it; an element of the array is adapted at once.
    if (stack.length === 1 && typeof key === "string") {
      top[key] = value;
      return;
    }
    index++;
    try {
      const result = adapt(JSON.stringify(spec.wrap(value, top)), spec.format, context);
      ready.push(...result.traces);
      for (const w of result.warnings) onWarning({ line: index, message: w.message });
    } catch (e) {
      onWarning({ line: index, message: `element ${index}: ${(e as Error).message}` });
    }
  };
  for await (const chunk of chunks) {
    if (parser.isEnded) {
      // After the document: whitespace is fine, anything else is reported and left out.
      if (Buffer.from(chunk).toString("utf8").trim())
        onWarning({ line: index + 1, message: "content after the JSON document, left out" });
      continue;
    }
    parser.write(chunk);
    while (ready.length) yield ready.shift()!;
  }
  if (!parser.isEnded) parser.end(); // it ends by itself after the root value
  while (ready.length) yield ready.shift()!;
}
