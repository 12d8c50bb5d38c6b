/**
 * What an upload holds before it is stored (the browser's upload form): its format, its runs and which of their
 * identity fields the file does not say (system, model, dataset), and the tools it calls that the default role
 * mapping does not know. The researcher fills those in the same form, then the staged file is ingested with them.
 * A canonical file is previewed from its first lines; a foreign file is adapted whole (as its ingest will be).
 */
import type { Sql } from "@/lib/db/sql";
import { binary, many, qb } from "@/lib/db/typed";
import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { DEFAULT_ROLE_MAP } from "@/lib/sql/classify-step";
import { adapt, detectFormat, looksCanonical } from "@/lib/trace/adapters";
import { evalZipToLog, isZip } from "@/lib/trace/adapters/inspect-zip";
import { normalizeToolName } from "@/lib/trace/tool-names";
import { parseLine } from "@/lib/trace/parse-line";
import { splitLines } from "./split-lines";
import { streamAdapted, streamSpecFor } from "./stream-foreign";

export interface PreviewRun {
  name: string | null;
  system: string | null;
  model: string | null;
  benchmark: string | null;
  traces: number;
}

export interface UploadPreview {
  format: string;
  runs: PreviewRun[];
  /** Identity fields no run of the file states (or, for the dataset, that name no imported dataset). */
  unknown: ("system" | "model" | "dataset")[];
  /** Tools the default role mapping does not know, with their calls in the previewed part. */
  unknownTools: { tool: string; calls: number }[];
  /** Whether only the first lines were read. */
  partial: boolean;
  /** Lines that will not be stored (invalid JSON, or not a trace by the format's schema), and the first few errors. */
  invalidLines: number;
  lineErrors: { line: number; error: string }[];
  datasets: { id: string; name: string }[];
}

const PREVIEW_LINES = 5000;

type Json = Record<string, unknown>;

export async function previewFile(
  sql: Sql,
  file: string,
  options: { format?: string; fileName?: string } = {},
): Promise<UploadPreview> {
  const datasets = await many(sql, qb(sql).selectFrom("datasets").select(["id", "name"]).orderBy(binary(sql, "name")));
  const headBytes = await readHead(file);
  const head = headBytes.toString("utf8");
  const requested = options.format && options.format !== "auto" ? options.format : undefined;
  const traces: { run?: Json; steps?: Json[] }[] = [];
  let format: string;
  let partial = false;
  let text: string | undefined;
  let streamed = false;
  let invalidLines = 0;
  const lineErrors: UploadPreview["lineErrors"] = [];
  const invalid = (line: number, error: string) => {
    invalidLines++;
    if (lineErrors.length < 5) lineErrors.push({ line, error });
  };
  if (isZip(headBytes)) {
    // An Inspect .eval: the .json log it holds.
    text = JSON.stringify(await evalZipToLog(await readFile(file)));
    format = requested ?? detectFormat(text);
  } else if (streamSpecFor(head, requested)) {
    // One big array (LiveSQLBench results, Inspect samples, rollouts): the first elements, streamed.
    const spec = streamSpecFor(head, requested)!;
    format = spec.format;
    streamed = true;
    for await (const t of streamAdapted(
      createReadStream(file),
      spec,
      { fileName: options.fileName },
      () => undefined,
    )) {
      if (traces.length >= PREVIEW_LINES) {
        partial = true;
        break;
      }
      traces.push({ run: t.run as Json | undefined, steps: t.steps as unknown as Json[] });
    }
  } else if (requested) format = requested;
  else if (looksCanonical(head)) format = "canonical";
  else {
    text = await readFile(file, "utf8");
    format = detectFormat(text);
  }
  if (streamed) {
    // read above
  } else if (format === "canonical") {
    const progress = { bytes: 0, lines: 0 };
    for await (const line of splitLines(createReadStream(file), 64 * 1024 * 1024, progress)) {
      if (progress.lines > PREVIEW_LINES) {
        partial = true;
        break;
      }
      if ("error" in line) {
        invalid(line.lineNo, line.error);
        continue;
      }
      if (!line.text.trim()) continue;
      // Validated as ingest validates it: the review counts what will be stored (issue 30).
      const parsed = parseLine(line.text, line.lineNo);
      if (!parsed.ok) {
        invalid(parsed.lineNo, parsed.error);
        continue;
      }
      const o = JSON.parse(line.text) as Json;
      if (o.kind !== "step") traces.push(o as { run?: Json; steps?: Json[] });
      else traces.push({ steps: [o] });
    }
  } else {
    const adapted = adapt(text ?? (await readFile(file, "utf8")), format, { fileName: options.fileName });
    for (const t of adapted.traces)
      traces.push({ run: t.run as Json | undefined, steps: t.steps as unknown as Json[] });
  }
  const runs = new Map<string, PreviewRun>();
  const tools = new Map<string, number>();
  const str = (v: unknown) => (typeof v === "string" && v.trim() ? v : null);
  for (const t of traces) {
    if (t.run || !t.steps || t.steps.length !== 1 || t.steps[0].kind !== "step") {
      const r = {
        name: str(t.run?.name),
        system: str(t.run?.system),
        model: str(t.run?.model),
        benchmark: str(t.run?.benchmark),
      };
      const key = JSON.stringify(r);
      const entry = runs.get(key) ?? { ...r, traces: 0 };
      entry.traces++;
      runs.set(key, entry);
    }
    for (const s of t.steps ?? []) {
      if (s.type !== "tool_call" || typeof s.tool !== "string") continue;
      const name = normalizeToolName(s.tool, Object.keys(DEFAULT_ROLE_MAP));
      if (!(name in DEFAULT_ROLE_MAP)) tools.set(name, (tools.get(name) ?? 0) + 1);
    }
  }
  const list = [...runs.values()];
  const known = (b: string | null) => b !== null && datasets.some((d) => d.id === b || d.name === b);
  const unknown: UploadPreview["unknown"] = [];
  if (list.length === 0 || list.some((r) => r.system === null)) unknown.push("system");
  if (list.length === 0 || list.some((r) => r.model === null)) unknown.push("model");
  if (datasets.length > 0 && (list.length === 0 || list.some((r) => !known(r.benchmark)))) unknown.push("dataset");
  return {
    format,
    runs: list,
    unknown,
    unknownTools: [...tools].map(([tool, calls]) => ({ tool, calls })).sort((a, b) => b.calls - a.calls),
    partial,
    invalidLines,
    lineErrors,
    datasets,
  };
}

async function readHead(file: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of createReadStream(file, { end: 1024 * 1024 })) {
    chunks.push(c as Buffer);
    size += (c as Buffer).length;
    if (size >= 1024 * 1024) break;
  }
  return Buffer.concat(chunks);
}
