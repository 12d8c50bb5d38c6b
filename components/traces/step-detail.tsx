"use client";

import { useState } from "react";
import type { StepDetailView } from "@/lib/highlight/step-detail";
import { PRESET_LABELS } from "@/lib/metrics/failure-taxonomy";
import { useFormats } from "@/components/ui/locale";

const SHOWN_ROWS = 50;
const SHOWN_CHARS = 4000;

/** Shiki's HTML: the only HTML this page inserts; shiki escapes the code it highlights. */
function Code({ html }: { html: string }) {
  return (
    <div
      className="overflow-x-auto rounded border border-zinc-200 text-xs [&_pre]:p-2 [&_pre]:whitespace-pre-wrap"
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
}

function LongText({ text, total }: { text: string; total: number }) {
  const f = useFormats();
  const [all, setAll] = useState(false);
  const cut = !all && text.length > SHOWN_CHARS;
  return (
    <div>
      <pre
        tabIndex={0}
        className="max-h-[32rem] overflow-auto whitespace-pre-wrap rounded border border-zinc-200 bg-zinc-50 p-2 text-xs"
      >
        {cut ? text.slice(0, SHOWN_CHARS) : text}
      </pre>
      {(cut || total > text.length) && (
        <button
          type="button"
          className="mt-1 text-xs text-blue-700 hover:underline"
          onClick={() => setAll(true)}
          disabled={!cut}
        >
          {cut
            ? `show all (${f.count(total)} characters)`
            : `${f.count(total)} characters in all; the first ${f.count(text.length)} are shown`}
        </button>
      )}
    </div>
  );
}

/** Labels one step (a failure cause at this step, or a free tag): what the trace panel does for the whole trace. */
function StepLabel({ traceId, seq }: { traceId: string; seq: number }) {
  const [label, setLabel] = useState("");
  const [said, setSaid] = useState<string | null>(null);
  const save = async () => {
    if (!label.trim()) return;
    const res = await fetch(`/api/traces/${encodeURIComponent(traceId)}/labels`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ label, seq, on: true }),
    });
    const body = await res.json().catch(() => ({}));
    setSaid(res.ok ? `labelled “${label.trim()}”` : (body.error ?? `HTTP ${res.status}`));
    if (res.ok) setLabel("");
  };
  return (
    <form
      className="flex items-center gap-2 text-xs"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <input
        list={`step-label-causes-${seq}`}
        value={label}
        onChange={(e) => setLabel(e.target.value)}
        aria-label={`Label step ${seq}`}
        placeholder="label this step (a cause or a tag)"
        className="w-64 rounded border border-zinc-300 px-2 py-0.5"
      />
      <datalist id={`step-label-causes-${seq}`}>
        {PRESET_LABELS.map((l) => (
          <option key={l} value={l} />
        ))}
      </datalist>
      <button type="submit" className="rounded border border-zinc-300 px-2 py-0.5">
        Label step
      </button>
      {said && <span className="text-zinc-600">{said}</span>}
    </form>
  );
}

export function StepDetail({ view, traceId }: { view: StepDetailView; traceId?: string }) {
  const [allRows, setAllRows] = useState(false);
  const r = view.result;
  return (
    <div className="space-y-2 px-3 pb-3 pt-1 text-sm" data-testid={`step-detail-${view.seq}`}>
      {view.error && <p className="whitespace-pre-wrap rounded bg-red-50 p-2 text-xs text-red-800">{view.error}</p>}
      {traceId && <StepLabel traceId={traceId} seq={view.seq} />}
      {view.content !== null && view.content !== "" && <LongText text={view.content} total={view.content.length} />}
      {view.sqlHtml && <Code html={view.sqlHtml} />}
      {view.argsHtml && (
        <details open={!view.sqlHtml}>
          <summary className="cursor-pointer text-xs text-zinc-500">arguments</summary>
          <Code html={view.argsHtml} />
        </details>
      )}
      {r.kind === "table" && (
        <div>
          <div tabIndex={0} className="max-h-[32rem] overflow-auto rounded border border-zinc-200">
            <table className="w-full text-xs">
              {r.columns && (
                <thead className="sticky top-0 bg-zinc-100">
                  <tr>
                    {r.columns.map((c, i) => (
                      <th key={i} className="px-2 py-1 text-left font-medium">
                        {c}
                      </th>
                    ))}
                  </tr>
                </thead>
              )}
              <tbody>
                {(allRows ? r.rows : r.rows.slice(0, SHOWN_ROWS)).map((row, i) => (
                  <tr key={i} className="border-t border-zinc-100">
                    {row.map((c, j) => (
                      <td key={j} className="px-2 py-0.5 font-mono">
                        {c}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p className="mt-1 text-xs text-zinc-500">
            {r.totalRows} rows{r.rows.length < r.totalRows ? ` (${r.rows.length} kept)` : ""}
            {!allRows && r.rows.length > SHOWN_ROWS && (
              <button type="button" className="ml-2 text-blue-700 hover:underline" onClick={() => setAllRows(true)}>
                show all
              </button>
            )}
          </p>
        </div>
      )}
      {r.kind === "json" && view.resultHtml && <Code html={view.resultHtml} />}
      {r.kind === "text" && <LongText text={r.text} total={r.size} />}
      {view.meta && (
        <details>
          <summary className="cursor-pointer text-xs text-zinc-500">meta</summary>
          <pre className="whitespace-pre-wrap text-xs">{view.meta}</pre>
        </details>
      )}
    </div>
  );
}
