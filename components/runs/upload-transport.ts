/**
 * A browser upload's transport: the file streamed to the ingest route with progress, then stored after review.
 */
import type { AutoReport } from "@/lib/ingest/ingest-auto";
import type { UploadPreview } from "@/lib/ingest/preview";

export interface FileState {
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

export const ERRORS_SHOWN = 10;

/** POSTs to the ingest route with XHR (upload progress), following lines processed through server-sent events. */
export function post<T>(
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
export async function store(
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
export async function uploadFile(
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
