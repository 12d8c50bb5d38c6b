"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import { Count, Duration } from "@/components/ui/locale";
import { parseAsInteger, useQueryState } from "nuqs";
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { StepSummary } from "@/lib/db/queries/steps";
import type { StepDetailView } from "@/lib/highlight/step-detail";
import { ROLE_STYLE, roleOf } from "./roles";
import { StepDetail } from "./step-detail";

const ROW_HEIGHT = 34;
const HEADER_HEIGHT = 24;
const PAGE = 200;

export interface TimelineProps {
  traceId: string;
  total: number;
  initialSteps: StepSummary[];
  initialDetail: StepDetailView | null;
  gold: string[] | null;
  highlightTable: string | null;
  allGoldSeenAt: number | null;
  directives: { at_step?: number; irrelevant_tables: string[]; strategy: string } | null;
  maxDurationMs: number | null;
  /** Keep the open step in `?step=` (the question page); side-by-side columns keep it to themselves. */
  stepInUrl?: boolean;
}

function tokensOf(s: StepSummary) {
  return (s.inputTokens ?? 0) + (s.outputTokens ?? 0);
}

const Row = memo(function Row({
  s,
  expanded,
  highlighted,
  goldSet,
  allGoldSeen,
  directives,
  maxDurationMs,
  onToggle,
}: {
  s: StepSummary;
  expanded: boolean;
  highlighted: boolean;
  goldSet: Set<string> | null;
  allGoldSeen: boolean;
  directives: TimelineProps["directives"];
  maxDurationMs: number | null;
  onToggle: (seq: number) => void;
}) {
  const role = roleOf(s);
  const style = ROLE_STYLE[role] ?? ROLE_STYLE.other;
  const isError = Boolean(s.error) || s.type === "error";
  const collapsedText = s.type === "reasoning" || s.type === "message";
  const width = s.durationMs && maxDurationMs ? Math.max(2, Math.round((56 * s.durationMs) / maxDurationMs)) : 0;
  const name = s.tool ?? (s.type === "message" ? (s.role ?? "message") : s.type);
  return (
    <button
      type="button"
      onClick={() => onToggle(s.seq)}
      aria-expanded={expanded}
      data-testid={`step-row-${s.seq}`}
      data-highlighted={highlighted || undefined}
      className={`flex h-[34px] w-full items-center gap-2 border-b border-zinc-100 px-2 text-left text-xs ${highlighted ? "bg-blue-50" : "hover:bg-zinc-50"} ${isError ? "text-red-700" : ""}`}
    >
      <span className="w-12 shrink-0 text-right font-mono text-zinc-600">{s.seq}</span>
      <span
        className={`flex h-5 w-5 shrink-0 items-center justify-center rounded-full text-[10px] text-white ${isError ? "bg-red-600" : style.dot}`}
        title={isError ? "error" : style.label}
      >
        {isError ? "!" : style.icon}
      </span>
      <span className="w-36 shrink-0 truncate font-medium" title={name}>
        {name}
      </span>
      {s.exploratory && (
        <span className="shrink-0 rounded bg-violet-100 px-1 text-violet-800" title="exploratory call (Sophrosyne)">
          explore
        </span>
      )}
      {s.exploratory && s.tables.length === 0 && (
        <span
          className="shrink-0 rounded bg-amber-100 px-1 text-amber-900"
          title="an exploratory call that names no table: counted, on an unknown table"
        >
          unknown table
        </span>
      )}
      {s.emptyResult && (
        <span
          className="shrink-0 rounded bg-orange-100 px-1 text-orange-900"
          title="this SQL probe returned no rows (SDE-SQL)"
          data-testid="empty-probe"
        >
          empty result
        </span>
      )}
      {s.refines !== null && (
        <span
          className="shrink-0 rounded bg-sky-100 px-1 text-sky-900"
          title={`refines the empty-result probe at step ${s.refines}: same tables, changed SQL`}
        >
          refines #{s.refines}
        </span>
      )}
      <span className={`min-w-0 flex-1 truncate ${collapsedText ? "italic text-zinc-600" : "font-mono"}`}>
        {collapsedText ? `${s.summary}${s.contentSize > 200 ? ` … (${s.contentSize} chars)` : ""}` : s.summary}
        {isError && s.error ? ` — ${s.error}` : ""}
      </span>
      <span className="flex shrink-0 gap-1">
        {s.tables.slice(0, 4).map((t) => {
          const gold = goldSet ? goldSet.has(t.toLowerCase()) : null;
          return (
            <span
              key={t}
              className={`rounded px-1 ${gold === null ? "bg-zinc-100" : gold ? "bg-emerald-100 text-emerald-800" : "bg-amber-100 text-amber-800"}`}
              title={gold === null ? "gold unknown" : gold ? "gold table" : "not a gold table"}
            >
              {gold ? "★ " : ""}
              {t}
            </span>
          );
        })}
        {s.tables.length > 4 && <span className="text-zinc-600">+{s.tables.length - 4}</span>}
      </span>
      {allGoldSeen && (
        <span
          className="shrink-0 rounded bg-emerald-700 px-1 text-white"
          title="every gold table had been seen by this step"
        >
          all gold seen
        </span>
      )}
      {directives && directives.at_step === s.seq && (
        <span
          className="shrink-0 rounded bg-zinc-800 px-1 text-white"
          title={`${directives.strategy} directives: ${directives.irrelevant_tables.join(", ")}`}
        >
          directives: {directives.irrelevant_tables.length} flagged
        </span>
      )}
      <span className="w-14 shrink-0 text-right tabular-nums text-zinc-600" title="input + output tokens">
        {tokensOf(s) ? <Count n={tokensOf(s)} /> : ""}
      </span>
      <span
        className="flex w-24 shrink-0 items-center gap-1"
        title={s.durationMs !== null ? `${s.durationMs} ms` : "no timing"}
      >
        <span className="h-1.5 rounded bg-zinc-400" style={{ width }} />
        <span className="whitespace-nowrap text-[10px] text-zinc-600">
          {s.durationMs !== null ? <Duration ms={s.durationMs} /> : ""}
        </span>
      </span>
    </button>
  );
});

/** A JSON body, or an error that says what went wrong (the status and the server's message, or the network). */
async function fetchJson<T>(url: string): Promise<T> {
  let r: Response;
  try {
    r = await fetch(url);
  } catch {
    throw new Error("the server could not be reached");
  }
  if (!r.ok) {
    const body = (await r.json().catch(() => null)) as { error?: string } | null;
    throw new Error(`HTTP ${r.status}${body?.error ? `: ${body.error}` : ""}`);
  }
  return (await r.json()) as T;
}

/** The timeline: virtualised rows, loaded in windows as it scrolls; `?step=N` opens and scrolls to step N. */
export function Timeline(props: TimelineProps) {
  const { traceId, total, gold, highlightTable } = props;
  const parent = useRef<HTMLDivElement>(null);
  const [urlStep, setUrlStep] = useQueryState(
    "step",
    parseAsInteger.withOptions({ history: "replace", scroll: false }),
  );
  const inUrl = props.stepInUrl ?? true;
  const step = inUrl ? urlStep : null;
  const setStep = (v: number | null) => (inUrl ? setUrlStep(v) : Promise.resolve(null));
  const [rows, setRows] = useState(() => new Map(props.initialSteps.map((s) => [s.seq, s])));
  const [details, setDetails] = useState(
    () => new Map(props.initialDetail ? [[props.initialDetail.seq, props.initialDetail]] : []),
  );
  const [expanded, setExpanded] = useState(() => new Set(step !== null ? [step] : []));
  const loading = useRef(new Set<number>());
  /** Windows of steps, and steps opened, whose fetch failed: said in their rows, with a retry. */
  const [failedPages, setFailedPages] = useState(() => new Map<number, string>());
  const [failedDetails, setFailedDetails] = useState(() => new Map<number, string>());
  // Stable across renders, so a row whose own props did not change skips its render (Row is memoised).
  const goldKey = gold ? gold.join("\u0000") : null;
  const goldSet = useMemo(
    () => (goldKey === null ? null : new Set(goldKey.split("\u0000").map((t) => t.toLowerCase()))),
    [goldKey],
  );

  const loadPage = useCallback(
    (page: number) => {
      if (loading.current.has(page)) return;
      loading.current.add(page);
      setFailedPages((old) => (old.has(page) ? new Map([...old].filter(([p]) => p !== page)) : old));
      void fetchJson<{ steps: StepSummary[] }>(`/api/traces/${traceId}/steps?from=${page * PAGE}&limit=${PAGE}`)
        .then((body) => {
          setRows((old) => {
            const next = new Map(old);
            for (const s of body.steps) next.set(s.seq, s);
            return next;
          });
        })
        .catch((e: unknown) => setFailedPages((old) => new Map(old).set(page, (e as Error).message)))
        .finally(() => loading.current.delete(page));
    },
    [traceId],
  );

  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Virtual returns new functions each render by design
  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => parent.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 20,
    scrollMargin: HEADER_HEIGHT,
    onChange: (v) => {
      const items = v.getVirtualItems();
      if (items.length === 0) return;
      for (let p = Math.floor(items[0].index / PAGE); p <= Math.floor(items[items.length - 1].index / PAGE); p++) {
        if (!rows.has(p * PAGE) && !failedPages.has(p)) loadPage(p); // a failed window waits for its Retry
      }
    },
  });

  // Scrolling the deep-linked step into view syncs with the DOM once, after the first render.
  const initialStep = useRef(step);
  useEffect(() => {
    if (initialStep.current !== null) virtualizer.scrollToIndex(initialStep.current, { align: "center" });
  }, [virtualizer]);

  const loadDetail = useCallback(
    (seq: number) => {
      setFailedDetails((old) => (old.has(seq) ? new Map([...old].filter(([s]) => s !== seq)) : old));
      void fetchJson<StepDetailView>(`/api/traces/${traceId}/steps/${seq}`)
        .then((view) => setDetails((old) => new Map(old).set(seq, view)))
        .catch((e: unknown) => setFailedDetails((old) => new Map(old).set(seq, (e as Error).message)));
    },
    [traceId],
  );

  // What the toggle reads, kept current without making a new toggle each render.
  const latest = useRef({ expanded, details, setStep });
  useLayoutEffect(() => {
    latest.current = { expanded, details, setStep };
  });
  const toggle = useCallback(
    (seq: number) => {
      const { expanded, details, setStep } = latest.current;
      const open = !expanded.has(seq);
      setExpanded((old) => {
        const next = new Set(old);
        if (open) next.add(seq);
        else next.delete(seq);
        return next;
      });
      void setStep(open ? seq : null);
      if (open && !details.has(seq)) loadDetail(seq);
    },
    [loadDetail],
  );

  return (
    <>
      {/* Windows that failed to load, said once above the steps (in view wherever they are scrolled), with a Retry. */}
      {[...failedPages].map(([page, message]) => (
        <p key={page} className="mb-1 flex items-center gap-2 text-xs text-red-800" role="alert">
          Steps {page * PAGE}–{Math.min(total, (page + 1) * PAGE) - 1} could not be loaded ({message}).
          <button type="button" className="underline" onClick={() => loadPage(page)} data-testid="timeline-retry">
            Retry
          </button>
        </p>
      ))}
      <div
        ref={parent}
        // As tall as its steps (a short trace leaves no blank space), at most 70 % of the window; then it scrolls.
        className="max-h-[70vh] overflow-auto rounded-lg border border-zinc-200 bg-white"
        style={{ height: virtualizer.getTotalSize() + HEADER_HEIGHT + 2 }}
        data-testid="timeline"
        data-timeline={traceId}
        // A scrollable region is reachable by keyboard (arrows scroll it), whether or not its rows have loaded.
        tabIndex={0}
        role="region"
        aria-label="Steps of the trace"
      >
        <div
          className="sticky top-0 z-10 flex min-w-[40rem] items-center gap-2 border-b border-zinc-200 bg-zinc-50 px-2 text-[11px] font-medium uppercase tracking-wide text-zinc-600"
          style={{ height: HEADER_HEIGHT }}
          data-testid="timeline-header"
        >
          <span className="w-12 shrink-0 text-right">step</span>
          <span className="w-5 shrink-0" aria-hidden="true" />
          <span className="w-36 shrink-0">tool</span>
          <span className="min-w-0 flex-1">call or message</span>
          <span className="shrink-0">tables</span>
          <span className="w-14 shrink-0 text-right" title="input + output tokens of the model call">
            tokens
          </span>
          <span className="w-24 shrink-0" title="wall time of the step">
            time
          </span>
        </div>
        {/* Narrow columns (side by side) scroll sideways instead of squeezing the call out of the row. */}
        <div className="min-w-[40rem]" style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
          {virtualizer.getVirtualItems().map((item) => {
            const s = rows.get(item.index);
            const detail = details.get(item.index);
            return (
              <div
                key={item.key}
                data-index={item.index}
                ref={virtualizer.measureElement}
                style={{
                  position: "absolute",
                  top: 0,
                  left: 0,
                  width: "100%",
                  transform: `translateY(${item.start - HEADER_HEIGHT}px)`,
                }}
              >
                {s ? (
                  <>
                    <Row
                      s={s}
                      expanded={expanded.has(s.seq)}
                      highlighted={
                        highlightTable !== null &&
                        s.tables.some((t) => t.toLowerCase() === highlightTable.toLowerCase())
                      }
                      goldSet={goldSet}
                      allGoldSeen={props.allGoldSeenAt === s.seq}
                      directives={props.directives}
                      maxDurationMs={props.maxDurationMs}
                      onToggle={toggle}
                    />
                    {expanded.has(s.seq) &&
                      (detail ? (
                        <StepDetail view={detail} traceId={traceId} />
                      ) : failedDetails.has(s.seq) ? (
                        <p className="px-3 py-2 text-xs text-red-800" role="alert">
                          Step {s.seq} could not be loaded ({failedDetails.get(s.seq)}).{" "}
                          <button type="button" className="underline" onClick={() => loadDetail(s.seq)}>
                            Retry
                          </button>
                        </p>
                      ) : (
                        <p className="px-3 py-2 text-xs text-zinc-600">Loading step…</p>
                      ))}
                  </>
                ) : failedPages.has(Math.floor(item.index / PAGE)) ? (
                  <div className="flex h-[34px] items-center px-2 text-xs text-zinc-500">{item.index} — not loaded</div>
                ) : (
                  <div className="flex h-[34px] items-center px-2 text-xs text-zinc-600">{item.index} …</div>
                )}
              </div>
            );
          })}
        </div>
      </div>
    </>
  );
}
