"use client";

import { count, describeLinks } from "@/lib/text/count";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useRef, useState } from "react";
import { useFormats } from "@/components/ui/locale";
import type { AutoReport } from "@/lib/ingest/ingest-auto";
import type { UploadPreview } from "@/lib/ingest/preview";
import { stepRoles } from "@/lib/sql/classify-step";
import { FORMAT_OPTIONS } from "@/lib/trace/adapters/formats";
import { runPath } from "@/lib/url/runs";

interface FileState {
  name: string;
  size: number;
  sent: number;
  lines: number;
  traces: number;
  phase: "waiting" | "uploading" | "processing" | "review" | "storing" | "done" | "failed";
  staged?: string;
  preview?: UploadPreview;
  report?: AutoReport;
  error?: string;
}

const ERRORS_SHOWN = 10;

/** POSTs to the ingest route with XHR (upload progress), following lines processed through server-sent events. */
function post<T>(
  params: URLSearchParams,
  body: File | null,
  onUpdate: (patch: Partial<FileState>) => void,
  size: number,
): Promise<{ ok: true; body: T } | { ok: false; error: string }> {
  const token = crypto.randomUUID();
  params.set("token", token);
  const events = new EventSource(`/api/ingest/progress?token=${token}`);
  events.onmessage = (e) => {
    const p = JSON.parse(e.data) as { lines?: number; traces?: number };
    if (p.lines) onUpdate({ lines: p.lines, traces: p.traces ?? 0 });
  };
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `/api/ingest?${params}`);
    xhr.setRequestHeader("Content-Type", "application/x-ndjson");
    if (body)
      xhr.upload.onprogress = (e) => onUpdate({ sent: e.loaded, phase: e.loaded >= size ? "processing" : "uploading" });
    xhr.onload = () => {
      events.close();
      let parsed: (T & { error?: string }) | undefined;
      try {
        parsed = JSON.parse(xhr.responseText);
      } catch {
        /* reported below */
      }
      resolve(
        xhr.status === 200 && parsed
          ? { ok: true, body: parsed }
          : { ok: false, error: parsed?.error ?? `HTTP ${xhr.status}` },
      );
    };
    xhr.onerror = () => {
      events.close();
      resolve({ ok: false, error: "network error" });
    };
    xhr.send(body);
  });
}

/** Stores a staged file with what the researcher filled in. */
async function store(
  file: FileState,
  meta: Record<string, string>,
  onUpdate: (patch: Partial<FileState>) => void,
): Promise<void> {
  onUpdate({ phase: "storing", lines: 0 });
  const r = await post<AutoReport>(
    new URLSearchParams({ staged: file.staged!, filename: file.name, ...meta }),
    null,
    onUpdate,
    file.size,
  );
  if (r.ok) onUpdate({ phase: "done", report: r.body, lines: r.body.lines });
  else onUpdate({ phase: "failed", error: r.error });
}

/** Stages one file (sent once), then stores it at once when the file says everything, else asks first. */
async function uploadFile(
  file: File,
  meta: Record<string, string>,
  onUpdate: (patch: Partial<FileState>) => void,
): Promise<void> {
  onUpdate({ phase: "uploading" });
  const staged = await post<{ staged: string; preview: UploadPreview }>(
    new URLSearchParams({ stage: "1", filename: file.name, ...meta }),
    file,
    onUpdate,
    file.size,
  );
  if (!staged.ok) return onUpdate({ phase: "failed", error: staged.error });
  const { preview } = staged.body;
  // A dataset is optional (a run can be linked later); an unknown system or model, or tool roles, are asked first.
  const missing = preview.unknown.filter((k) => k !== "dataset" && !meta[k]);
  onUpdate({ sent: file.size, staged: staged.body.staged, preview });
  if (missing.length === 0 && preview.unknownTools.length === 0)
    await store(
      {
        name: file.name,
        size: file.size,
        sent: file.size,
        lines: 0,
        traces: 0,
        phase: "storing",
        staged: staged.body.staged,
      },
      meta,
      onUpdate,
    );
  else onUpdate({ phase: "review" });
}

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

/** What the file does not say, asked before it is stored: system, model, dataset, roles of unknown tools. */
function ReviewForm({
  file,
  defaults,
  onStore,
}: {
  file: FileState;
  defaults: Record<string, string>;
  onStore: (meta: Record<string, string>) => void;
}) {
  const p = file.preview!;
  const [values, setValues] = useState({
    system: defaults.system ?? "",
    model: defaults.model ?? "",
    dataset: defaults.dataset ?? "",
  });
  const [roles, setRoles] = useState<Record<string, string>>({});
  const missing = p.unknown.filter((k) => k !== "dataset" && !values[k].trim());
  const submit = () => {
    const meta: Record<string, string> = Object.fromEntries(
      Object.entries({ ...defaults, ...values }).filter(([k, v]) => v.trim() && k !== "format"),
    );
    if (defaults.format) meta.format = defaults.format;
    const chosen = Object.fromEntries(Object.entries(roles).filter(([, r]) => r !== "other"));
    if (Object.keys(chosen).length) meta.roles = JSON.stringify(chosen);
    onStore(meta);
  };
  return (
    <form
      className="mt-2 space-y-2 rounded border border-amber-300 bg-amber-50 p-3"
      data-testid="upload-review"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <p className="text-sm">
        <span className="rounded bg-white px-1.5 py-0.5 text-xs">{p.format}</span>{" "}
        {count(
          p.runs.reduce((s, r) => s + r.traces, 0),
          "trace",
        )}
        {p.partial ? " in the first lines" : ""} of {count(p.runs.length, "run")} will be stored
        {p.invalidLines > 0 && (
          <span className="text-red-800" data-testid="review-invalid">
            ; {count(p.invalidLines, "line")}
            {p.partial ? " in the first lines" : ""} {p.invalidLines === 1 ? "is" : "are"} invalid and will be skipped (
            {p.lineErrors.map((e) => `line ${e.line}: ${e.error}`).join("; ")}
            {p.invalidLines > p.lineErrors.length ? "; …" : ""})
          </span>
        )}
        . The file does not say {p.unknown.length ? p.unknown.join(", ") : "the roles of some tools"}: fill{" "}
        {p.unknown.length ? "them" : "them"} in before storing (left empty, they stay &quot;unknown&quot;).
      </p>
      <div className="grid gap-2 sm:grid-cols-3">
        {(["system", "model"] as const)
          .filter((k) => p.unknown.includes(k))
          .map((k) => (
            <label key={k} className="flex flex-col gap-1 text-sm">
              <span>{k === "system" ? "System (variant)" : "Model"}</span>
              <input
                name={`review-${k}`}
                className="rounded border border-zinc-300 bg-white px-2 py-1"
                value={values[k]}
                onChange={(e) => setValues({ ...values, [k]: e.target.value })}
              />
            </label>
          ))}
        {p.unknown.includes("dataset") && (
          <label className="flex flex-col gap-1 text-sm">
            <span>Dataset</span>
            <select
              name="review-dataset"
              className="rounded border border-zinc-300 bg-white px-2 py-1"
              value={values.dataset}
              onChange={(e) => setValues({ ...values, dataset: e.target.value })}
            >
              <option value="">none (gold tables only from the traces)</option>
              {p.datasets.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      {p.unknownTools.length > 0 && (
        <fieldset className="text-sm">
          <legend className="text-xs text-zinc-600">
            Tools the default roles do not know (kept as &quot;other&quot; unless you choose):
          </legend>
          <div className="mt-1 flex flex-wrap gap-3">
            {p.unknownTools.slice(0, 20).map((t) => (
              <label key={t.tool} className="flex items-center gap-1">
                <span className="font-mono text-xs">{t.tool}</span> ({t.calls})
                <select
                  aria-label={`Role of ${t.tool}`}
                  className="rounded border border-zinc-300 bg-white px-1"
                  value={roles[t.tool] ?? "other"}
                  onChange={(e) => setRoles({ ...roles, [t.tool]: e.target.value })}
                >
                  {stepRoles.map((r) => (
                    <option key={r} value={r}>
                      {r.replace(/_/g, " ")}
                    </option>
                  ))}
                </select>
              </label>
            ))}
          </div>
        </fieldset>
      )}
      <button type="submit" className="rounded bg-zinc-900 px-3 py-1.5 text-sm text-white">
        {missing.length ? `Store with ${missing.join(" and ")} unknown` : "Store"}
      </button>
    </form>
  );
}

function FileProgress({
  file,
  defaults,
  onStore,
}: {
  file: FileState;
  defaults: Record<string, string>;
  onStore: (meta: Record<string, string>) => void;
}) {
  const f = useFormats();
  const pct = file.size ? Math.round((100 * file.sent) / file.size) : 100;
  const r = file.report;
  return (
    <li className="text-sm" data-testid="upload-file">
      <div className="flex justify-between">
        <span className="font-medium">{file.name}</span>
        <span className="text-zinc-500">
          {f.bytes(file.sent)} of {f.bytes(file.size)} sent · {f.count(file.lines)} lines processed
        </span>
      </div>
      <div
        role="progressbar"
        aria-label={`Upload of ${file.name}`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct}
        className="mt-1 h-2 overflow-hidden rounded bg-zinc-200"
      >
        <div
          className={`h-full ${file.phase === "failed" ? "bg-red-500" : file.phase === "done" ? "bg-emerald-500" : "bg-blue-500"}`}
          style={{ width: `${pct}%` }}
        />
      </div>
      {file.phase === "failed" && (
        <p className="mt-2 text-red-700" role="alert">
          {file.error}
        </p>
      )}
      {file.phase === "review" && file.preview && <ReviewForm file={file} defaults={defaults} onStore={onStore} />}
      {r && (
        <div className="mt-2 space-y-2" data-testid="upload-report">
          <p>
            <span className="rounded bg-zinc-100 px-1.5 py-0.5 text-xs" data-testid="upload-format">
              {r.format}
            </span>{" "}
            <strong>{f.count(r.inserted)}</strong> {r.inserted === 1 ? "trace" : "traces"} stored,{" "}
            {f.count(r.duplicates)} {r.duplicates === 1 ? "duplicate" : "duplicates"} skipped,{" "}
            <span className={r.error_count ? "text-red-700" : ""}>
              {f.count(r.error_count)} {r.error_count === 1 ? "line" : "lines"} with errors
            </span>
            .
          </p>
          {r.warnings.length > 0 && (
            <ul className="space-y-0.5 font-mono text-xs text-amber-800">
              {r.warnings.slice(0, ERRORS_SHOWN).map((w, i) => (
                <li key={i}>
                  warning, line {w.line}: {w.message}
                </li>
              ))}
            </ul>
          )}
          {describeLinks(r.links).linked && <p className="text-xs text-zinc-600">{describeLinks(r.links).linked}</p>}
          {describeLinks(r.links).unlinked && (
            <p className="text-xs text-amber-800">{describeLinks(r.links).unlinked}</p>
          )}
          {r.errors.length > 0 && (
            <div>
              <ul className="space-y-0.5 font-mono text-xs text-red-800">
                {r.errors.slice(0, ERRORS_SHOWN).map((e) => (
                  <li key={e.line}>
                    line {e.line}: {e.message}
                  </li>
                ))}
              </ul>
              <a className="text-xs text-blue-700 hover:underline" href={`/api/uploads/${r.upload_id}/errors`} download>
                Download all {f.count(r.error_count)} errors (JSONL)
              </a>
            </div>
          )}
          {r.runs.length > 0 && (
            <p>
              Runs:{" "}
              {r.runs.map((run, i) => (
                <span key={run.id}>
                  {i > 0 && ", "}
                  <Link className="text-blue-700 hover:underline" href={runPath(run.id)}>
                    {run.name} · {run.system} · {run.model}
                  </Link>
                </span>
              ))}
            </p>
          )}
        </div>
      )}
    </li>
  );
}
