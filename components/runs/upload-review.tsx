"use client";

/** One file of an upload: its progress, the review of what the file does not say, and its report. */
import { count, describeLinks } from "@/lib/text/count";
import Link from "next/link";
import { useState } from "react";
import { useFormats } from "@/components/ui/locale";
import { stepRoles } from "@/lib/sql/classify-step";
import { runPath } from "@/lib/url/runs";
import { ERRORS_SHOWN, type FileState } from "./upload-transport";

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

export function FileProgress({
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
          {f.bytes(file.sent)} of {f.bytes(file.size)} sent ·{" "}
          {file.phase === "review"
            ? "read, nothing stored until you choose Store"
            : `${f.count(file.lines)} lines processed`}
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
                  {run.notice && (
                    <span className="text-xs text-amber-800" data-testid="run-notice">
                      {" "}
                      ({run.notice})
                    </span>
                  )}
                </span>
              ))}
            </p>
          )}
        </div>
      )}
    </li>
  );
}
