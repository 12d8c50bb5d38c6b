import { positiveNumber } from "@/lib/config/env";
import type { Metadata } from "next";
import Link from "next/link";
import { connection } from "next/server";
import { Suspense } from "react";
import { Snippet } from "@/components/search/snippet";
import { OutcomeBadge } from "@/components/ui/outcome-badge";
import { getSql, storeOpener } from "@/lib/db/store";
import { listSearchFacets } from "@/lib/db/queries/search-facets";
import { indexInBackground, searchTraces } from "@/lib/search";
import { OUTCOME_VALUES } from "@/lib/search/query";
import { questionPath } from "@/lib/url/question";
import { loadSearchParams, SEARCH_PAGE_SIZE, searchPath } from "@/lib/url/search";

export async function generateMetadata({ searchParams }: PageProps<"/search">): Promise<Metadata> {
  const { q } = await loadSearchParams(searchParams);
  return { title: q ? `Search: ${q} — Metron` : "Search — Metron" };
}

export default function SearchPage(props: PageProps<"/search">) {
  return (
    <div className="space-y-4">
      <h1 className="text-xl font-semibold">Search traces</h1>
      <Suspense fallback={<p className="text-sm text-zinc-500">Searching…</p>}>
        <Results {...props} />
      </Suspense>
    </div>
  );
}

const FILTERS = ["dataset", "system", "model", "outcome", "tool", "label"] as const;

async function Results({ searchParams }: PageProps<"/search">) {
  await connection();
  const params = await loadSearchParams(searchParams);
  const sql = await getSql();
  const facets = await listSearchFacets(sql);
  const options: Record<(typeof FILTERS)[number], readonly string[]> = {
    dataset: facets.datasets,
    system: facets.systems,
    model: facets.models,
    outcome: OUTCOME_VALUES,
    tool: facets.tools,
    label: facets.labels,
  };
  const filters = Object.fromEntries(FILTERS.map((f) => [f, params[f] ?? undefined]));
  const result = await searchTraces(sql, params.q, {
    filters: { ...filters, role: params.role ?? undefined },
    limit: SEARCH_PAGE_SIZE,
    offset: (params.page - 1) * SEARCH_PAGE_SIZE,
    // A search indexes what is pending for at most this long (at least one batch): the rest is left to the
    // background indexer, so one search never holds the server (SQLite indexes on the event loop) or the index lock.
    indexBudgetMs: positiveNumber("METRON_SEARCH_INDEX_BUDGET_MS", 100),
  });
  if (result.notIndexed > 0) indexInBackground(storeOpener());
  const pages = Math.max(1, Math.ceil(result.total / SEARCH_PAGE_SIZE));
  const asked = params.q.trim() || FILTERS.some((f) => params[f]);
  return (
    <>
      <form
        method="get"
        className="space-y-2 rounded-lg border border-zinc-200 bg-white p-3 text-sm"
        data-testid="search-form"
      >
        <label className="flex flex-col gap-1">
          <span className="text-xs text-zinc-600">
            Words and &quot;phrases&quot; in questions, SQL, tool arguments and results, messages; terms{" "}
            <code>tool:</code> <code>table:</code> <code>role:</code> (a step&apos;s), <code>outcome:</code>{" "}
            <code>system:</code> <code>model:</code> <code>run:</code> <code>dataset:</code> <code>db:</code>{" "}
            <code>label:</code> (a trace&apos;s); <code>-word</code> excludes
          </span>
          <input
            type="search"
            name="q"
            defaultValue={params.q}
            aria-label="Search query"
            className="rounded border border-zinc-300 px-2 py-1 font-mono"
          />
        </label>
        <div className="flex flex-wrap items-end gap-3">
          {FILTERS.map((f) => (
            <label key={f} className="flex flex-col gap-1">
              <span className="text-xs text-zinc-600">{f}</span>
              <select
                name={f}
                defaultValue={params[f] ?? ""}
                className="rounded border border-zinc-300 bg-white px-2 py-1"
              >
                <option value="">any</option>
                {options[f].map((o) => (
                  <option key={o} value={o}>
                    {o}
                  </option>
                ))}
              </select>
            </label>
          ))}
          <button type="submit" className="rounded bg-zinc-900 px-3 py-1 text-white">
            Search
          </button>
        </div>
      </form>
      {result.query.unknown.length > 0 && (
        <p role="alert" className="text-sm text-amber-800">
          Not understood, left out: {result.query.unknown.join("; ")}
        </p>
      )}
      {asked && (
        <p className="text-sm text-zinc-600" data-testid="search-total">
          {result.total} trace{result.total === 1 ? "" : "s"}
          {result.capped ? " (at least: only the best matches were grouped, METRON_SEARCH_MAX_DOCS)" : ""}
          {result.newlyIndexed ? ` · ${result.newlyIndexed} new traces indexed for this search` : ""}
          {result.notIndexed
            ? ` · ${result.notIndexed} traces are still being indexed and are left out: search again in a moment`
            : ""}
        </p>
      )}
      <ol className="space-y-3" data-testid="search-hits">
        {result.hits.map((h) => (
          <li key={h.traceId} className="space-y-1 rounded-lg border border-zinc-200 bg-white p-3 text-sm">
            <div className="flex flex-wrap items-center gap-2">
              <Link
                className="font-medium text-blue-700 hover:underline"
                href={questionPath(h.runId, h.questionId, h.sample ? { sample: h.sample } : {})}
              >
                Question {h.questionId}
                {h.sample ? ` #${h.sample}` : ""}
              </Link>
              <span className="text-zinc-600">
                {h.runName} · {h.system} · {h.model}
                {h.simulated ? " (simulated)" : ""}
              </span>
              <OutcomeBadge exOutcome={h.exOutcome} recordedCorrect={h.recordedCorrect} status={h.status} />
              {h.labels.map((l) => (
                <span key={l} className="rounded bg-violet-100 px-1.5 py-0.5 text-xs text-violet-900">
                  {l}
                </span>
              ))}
            </div>
            {h.questionText && <p className="text-zinc-700">{h.questionText}</p>}
            <ul className="space-y-0.5">
              {h.snippets.map((s, i) => (
                <li key={i} className="flex gap-2">
                  {s.seq !== null ? (
                    <Link
                      className="shrink-0 text-xs text-blue-700 hover:underline"
                      href={questionPath(h.runId, h.questionId, { sample: h.sample || undefined, step: s.seq })}
                    >
                      step {s.seq}
                    </Link>
                  ) : (
                    <span className="shrink-0 text-xs text-zinc-500">{s.field.replace("_", " ")}</span>
                  )}
                  <Snippet text={s.text} />
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ol>
      {pages > 1 && (
        <nav className="flex items-center gap-3 text-sm" aria-label="Pages">
          {params.page > 1 && (
            <Link
              className="rounded border border-zinc-300 px-2 py-1"
              href={searchPath({ ...params, page: params.page - 1 })}
            >
              Previous
            </Link>
          )}
          <span>
            Page {params.page} of {pages}
          </span>
          {params.page < pages && (
            <Link
              className="rounded border border-zinc-300 px-2 py-1"
              href={searchPath({ ...params, page: params.page + 1 })}
            >
              Next
            </Link>
          )}
        </nav>
      )}
    </>
  );
}
