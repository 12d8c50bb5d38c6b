"use client";

import { count } from "@/lib/text/count";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useFormats } from "@/components/ui/locale";

type Source = "sqlite" | "tables" | "ddl";
interface Report {
  dataset: string;
  questions: number;
  databases: number;
  schema_only: boolean;
  gold_tables: { explain: number; parser: number; scan: number; failed: number };
  questions_without_database: number;
  duplicate_question_ids: string[];
  linked_runs: string[];
}

function send(
  url: string,
  file: Blob,
  onProgress: (loaded: number) => void,
): Promise<{ ok: boolean; body: { error?: string } }> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    xhr.upload.onprogress = (e) => onProgress(e.loaded);
    xhr.onload = () => {
      let body = {};
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        /* below */
      }
      resolve({ ok: xhr.status === 200, body });
    };
    xhr.onerror = () => resolve({ ok: false, body: { error: "network error" } });
    xhr.send(file);
  });
}

/** Imports a benchmark from the browser, as `metron dataset import` does: files are sent one by one, then imported. */
export function DatasetImport() {
  const f = useFormats();
  const router = useRouter();
  const [name, setName] = useState("");
  const [format, setFormat] = useState("bird");
  const [source, setSource] = useState<Source>("sqlite");
  const [files, setFiles] = useState<{ questions: File[]; databases: File[]; descriptions: File[]; gold: File[] }>({
    questions: [],
    databases: [],
    descriptions: [],
    gold: [],
  });
  const [progress, setProgress] = useState<{ sent: number; total: number; phase: string } | null>(null);
  const [report, setReport] = useState<Report | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function start() {
    setError(null);
    setReport(null);
    const upload = crypto.randomUUID();
    const list: { kind: string; file: File; name: string }[] = [
      ...files.questions.map((f) => ({ kind: "questions", file: f, name: f.name })),
      ...files.databases.map((f) => ({ kind: source, file: f, name: f.name })),
      ...files.descriptions.map((f) => ({ kind: "descriptions", file: f, name: f.webkitRelativePath || f.name })),
      ...files.gold.map((f) => ({ kind: "gold", file: f, name: f.name })),
    ];
    const total = list.reduce((s, f) => s + f.file.size, 0);
    let done = 0;
    for (const f of list) {
      setProgress({ sent: done, total, phase: `sending ${f.name}` });
      const r = await send(
        `/api/datasets/files?${new URLSearchParams({ upload, kind: f.kind, name: f.name })}`,
        f.file,
        (loaded) => setProgress({ sent: done + loaded, total, phase: `sending ${f.name}` }),
      );
      if (!r.ok) {
        setError(`${f.name}: ${r.body.error ?? "upload failed"}`);
        setProgress(null);
        return;
      }
      done += f.file.size;
    }
    setProgress({ sent: total, total, phase: "importing: questions, databases, gold tables" });
    const res = await fetch("/api/datasets", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ upload, name, format }),
    });
    const body = await res.json();
    setProgress(null);
    if (!res.ok) return setError(body.error ?? `HTTP ${res.status}`);
    setReport(body);
    router.refresh();
  }

  const ready = name.trim() && files.questions.length === 1 && files.databases.length > 0 && !progress;
  const pct = progress && progress.total ? Math.round((100 * progress.sent) / progress.total) : 0;
  return (
    <details className="rounded-lg border border-zinc-200 bg-white p-3 text-sm" data-testid="dataset-import">
      <summary className="cursor-pointer font-semibold">Import a dataset</summary>
      <p className="mt-1 text-xs text-zinc-600">
        As <code>metron dataset import</code> does. Databases sent from here are kept beside the store; a large
        benchmark already on the server is better registered in place with the CLI.
      </p>
      <div className="mt-3 grid gap-3 sm:grid-cols-2">
        <label className="flex flex-col gap-1">
          <span className="text-xs text-zinc-600">Name</span>
          <input
            name="dataset-name"
            className="rounded border border-zinc-300 px-2 py-1"
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        </label>
        <label className="flex flex-col gap-1">
          <span className="text-xs text-zinc-600">Question format</span>
          <select
            aria-label="Question format"
            className="rounded border border-zinc-300 bg-white px-2 py-1"
            value={format}
            onChange={(e) => setFormat(e.target.value)}
          >
            <option value="bird">BIRD JSON (or a gold file of SQL⇥db_id lines)</option>
            <option value="spider">Spider JSON</option>
            <option value="spider2-lite">Spider2-lite JSONL</option>
          </select>
        </label>
        <label className="flex flex-col gap-1">
          <span className="text-xs text-zinc-600">Question file</span>
          <input
            aria-label="Question file"
            type="file"
            onChange={(e) => setFiles({ ...files, questions: Array.from(e.target.files ?? []) })}
          />
        </label>
        <fieldset className="flex flex-col gap-1">
          <legend className="text-xs text-zinc-600">Databases</legend>
          <div className="flex gap-3">
            {(["sqlite", "tables", "ddl"] as const).map((s) => (
              <label key={s} className="flex items-center gap-1">
                <input type="radio" name="source" checked={source === s} onChange={() => setSource(s)} />
                {
                  { sqlite: ".sqlite files", tables: "tables.json (schema only)", ddl: "DDL .sql files (schema only)" }[
                    s
                  ]
                }
              </label>
            ))}
          </div>
          <input
            aria-label="Database files"
            type="file"
            multiple={source !== "tables"}
            accept={source === "sqlite" ? ".sqlite,.sqlite3,.db" : source === "tables" ? ".json" : ".sql"}
            onChange={(e) => setFiles({ ...files, databases: Array.from(e.target.files ?? []) })}
          />
        </fieldset>
        <label className="flex flex-col gap-1">
          <span className="text-xs text-zinc-600">
            BIRD description CSVs (optional): the folder of &lt;db_id&gt;/&lt;table&gt;.csv
          </span>
          <input
            aria-label="Description folder"
            type="file"
            multiple
            {...{ webkitdirectory: "" }}
            onChange={(e) =>
              setFiles({
                ...files,
                descriptions: Array.from(e.target.files ?? []).filter((f) => /\.csv$/i.test(f.name)),
              })
            }
          />
        </label>
        {format === "spider2-lite" && (
          <label className="flex flex-col gap-1">
            <span className="text-xs text-zinc-600">
              Gold files: &lt;instance_id&gt;.sql, gold answers &lt;instance_id&gt;.csv or _a.csv, _b.csv…, and
              spider2lite_eval.jsonl (condition_cols, ignore_order)
            </span>
            <input
              aria-label="Gold SQL files"
              type="file"
              multiple
              accept=".sql,.csv,.jsonl"
              onChange={(e) => setFiles({ ...files, gold: Array.from(e.target.files ?? []) })}
            />
          </label>
        )}
      </div>
      <button
        type="button"
        disabled={!ready}
        onClick={() => void start()}
        className="mt-3 rounded bg-zinc-900 px-3 py-1.5 text-white disabled:opacity-50"
      >
        Import
      </button>
      {progress && (
        <div className="mt-2">
          <p className="text-xs text-zinc-600">
            {progress.phase} · {f.bytes(progress.sent)} of {f.bytes(progress.total)}
          </p>
          <div
            role="progressbar"
            aria-label="Dataset import"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={pct}
            className="mt-1 h-2 overflow-hidden rounded bg-zinc-200"
          >
            <div className="h-full bg-blue-500" style={{ width: `${pct}%` }} />
          </div>
        </div>
      )}
      {error && (
        <p role="alert" className="mt-2 text-red-700">
          {error}
        </p>
      )}
      {report && (
        <div className="mt-2 space-y-1" data-testid="dataset-report">
          <p>
            <strong>{report.dataset}</strong>: {count(report.questions, "question")} over{" "}
            {count(report.databases, report.schema_only ? "schema-only database" : "database")}.
          </p>
          <p className="text-xs">
            Gold tables: {report.gold_tables.explain} by EXPLAIN, {report.gold_tables.parser} by the parser,{" "}
            {report.gold_tables.failed} failed
            {report.gold_tables.failed > 0 ? " (their gold SQL does not compile: their gold tables are unknown)" : ""}.
          </p>
          {report.questions_without_database > 0 && (
            <p className="text-xs text-amber-800">
              {count(report.questions_without_database, "question names", "questions name")} a database that was not
              uploaded.
            </p>
          )}
          {report.duplicate_question_ids.length > 0 && (
            <p className="text-xs">Repeated question ids kept once: {report.duplicate_question_ids.join(", ")}</p>
          )}
          {report.linked_runs.length > 0 && (
            <p className="text-xs">Linked and measured again: {count(report.linked_runs.length, "run")}.</p>
          )}
        </div>
      )}
    </details>
  );
}
