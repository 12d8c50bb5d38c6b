"use client";

import { useRouter } from "next/navigation";
import { useRef, useState } from "react";
import { FORMAT_OPTIONS } from "@/lib/trace/adapters/formats";
import { uploadFile, store, type FileState } from "./upload-transport";
import { FileProgress } from "./upload-review";

export function UploadPanel() {
  const router = useRouter();
  const input = useRef<HTMLInputElement>(null);
  const [files, setFiles] = useState<FileState[]>([]);
  const [dragging, setDragging] = useState(false);
  const [meta, setMeta] = useState({ run: "", system: "", model: "", dataset: "", question: "", format: "auto" });
  const busy = files.some((f) => f.phase === "uploading" || f.phase === "processing" || f.phase === "storing");

  async function start(list: FileList | null) {
    if (!list || list.length === 0 || busy) return;
    const chosen = Array.from(list);
    setFiles(chosen.map((f) => ({ name: f.name, size: f.size, sent: 0, lines: 0, traces: 0, phase: "waiting" })));
    const given = Object.fromEntries(Object.entries(meta).filter(([, v]) => v.trim()));
    for (let i = 0; i < chosen.length; i++) {
      await uploadFile(chosen[i], given, (patch) =>
        setFiles((all) => all.map((f, j) => (j === i ? { ...f, ...patch } : f))),
      );
    }
    router.refresh();
  }

  return (
    <section aria-labelledby="upload-heading" className="rounded-lg border border-zinc-200 bg-white p-5">
      <h2 id="upload-heading" className="text-base font-semibold">
        Upload traces
      </h2>
      <p className="mt-1 text-sm text-zinc-600">
        Metron&apos;s{" "}
        <a className="text-blue-700 hover:underline" href="/api/schema/trace">
          canonical JSONL
        </a>
        , or what your agent wrote: OpenAI or Anthropic message logs, OpenCode exports, Claude Code and Codex sessions,
        LiveSQLBench results, Spider-Agent result.json, BIRD-Interact runs, MAC-SQL api traces, Inspect AI logs (.eval,
        .json), ATIF trajectories, OpenTelemetry (OTLP/JSON) exports (detected from the content; see docs/formats.md).
        An OpenTelemetry exporter can also send spans to this server&apos;s <code>/v1/traces</code>. Bad lines are
        reported by number; every valid trace is kept.
      </p>
      <div
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => {
          e.preventDefault();
          setDragging(false);
          void start(e.dataTransfer.files);
        }}
        className={`mt-4 flex flex-col items-center justify-center rounded-md border-2 border-dashed px-4 py-6 text-sm ${dragging ? "border-blue-500 bg-blue-50" : "border-zinc-300"}`}
      >
        <p>Drop trace files here (.jsonl, .json), or</p>
        <button
          type="button"
          disabled={busy}
          onClick={() => input.current?.click()}
          className="mt-2 rounded bg-zinc-900 px-3 py-1.5 text-white disabled:opacity-50"
        >
          Choose files
        </button>
        <input
          ref={input}
          type="file"
          multiple
          accept=".jsonl,.ndjson,.json,.eval,application/x-ndjson,application/zip"
          className="sr-only"
          aria-label="Trace files to upload"
          data-testid="upload-input"
          onChange={(e) => {
            void start(e.target.files);
            e.target.value = "";
          }}
        />
      </div>
      <fieldset className="mt-4 grid gap-3 text-sm sm:grid-cols-3">
        <legend className="mb-2 text-xs text-zinc-500">
          For files that lack them (a file&apos;s own run fields win)
        </legend>
        {(["run", "system", "model", "dataset", "question"] as const).map((key) => (
          <label key={key} className="flex flex-col gap-1">
            <span className="text-zinc-600">
              {
                {
                  run: "Run name",
                  system: "System (variant)",
                  model: "Model",
                  dataset: "Dataset (links questions)",
                  question: "Question id (one-session files)",
                }[key]
              }
            </span>
            <input
              className="rounded border border-zinc-300 px-2 py-1"
              value={meta[key]}
              onChange={(e) => setMeta({ ...meta, [key]: e.target.value })}
              name={key}
            />
          </label>
        ))}
        <label className="flex flex-col gap-1">
          <span className="text-zinc-600">Format</span>
          <select
            name="format"
            aria-label="Format"
            className="rounded border border-zinc-300 bg-white px-2 py-1"
            value={meta.format}
            onChange={(e) => setMeta({ ...meta, format: e.target.value })}
          >
            <option value="auto">detect from the content</option>
            {FORMAT_OPTIONS.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
          </select>
        </label>
      </fieldset>
      {files.length > 0 && (
        <ul className="mt-4 space-y-4">
          {files.map((f, i) => (
            <FileProgress
              key={i}
              file={f}
              defaults={meta}
              onStore={async (filled) => {
                await store(f, filled, (patch) =>
                  setFiles((all) => all.map((x, j) => (j === i ? { ...x, ...patch } : x))),
                );
                router.refresh();
              }}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
