"use client";

import { createColumnHelper, getCoreRowModel, useReactTable, type SortingState } from "@tanstack/react-table";
import { useQueryStates } from "nuqs";
import { DataTable } from "@/components/ui/data-table";
import { QuestionFacets } from "@/components/ui/facet-select";
import { Count, Tokens } from "@/components/ui/locale";
import { OutcomeBadge } from "@/components/ui/outcome-badge";
import type { TraceListRow } from "@/lib/db/queries/traces";
import Link from "next/link";
import { questionPath } from "@/lib/url/question";
import { traceSortKeys, tracesSearchParams, type TraceSortKey } from "@/lib/url/runs";

const col = createColumnHelper<TraceListRow>();

const columns = [
  col.accessor("questionId", {
    id: "question",
    header: "Question",
    cell: (c) => (
      <Link
        className="font-mono text-blue-700 hover:underline"
        href={questionPath(c.row.original.runId, c.getValue(), { sample: c.row.original.sample })}
      >
        {c.getValue()}
        {c.row.original.sample ? <span className="text-zinc-500"> #{c.row.original.sample}</span> : null}
      </Link>
    ),
  }),
  col.display({
    id: "text",
    header: "Question text",
    cell: ({ row: { original: r } }) =>
      r.questionText ? (
        <span className="block max-w-xs truncate text-zinc-700" title={r.questionText}>
          {r.questionText}
        </span>
      ) : (
        <span className="text-zinc-500">not recorded</span>
      ),
  }),
  // Beside the question, not last: the table is wider than the page and its last columns need a sideways scroll.
  col.display({
    id: "outcome",
    header: "Outcome",
    enableSorting: true,
    cell: ({ row: { original: r } }) => (
      <OutcomeBadge exOutcome={r.exOutcome} exError={r.exError} recordedCorrect={r.recordedCorrect} status={r.status} />
    ),
  }),
  col.accessor("dbId", { id: "db", header: "Database", cell: (c) => c.getValue() ?? "—" }),
  col.accessor("stepCount", {
    id: "steps",
    header: "Steps",
    cell: (c) => <Count n={c.getValue()} />,
    meta: { align: "right" },
  }),
  col.accessor("toolCallCount", {
    id: "tools",
    header: "Tool calls",
    cell: (c) => <Count n={c.getValue()} />,
    meta: { align: "right" },
  }),
  col.accessor("exploratoryCalls", {
    id: "exploratory",
    header: "Exploratory / gold",
    cell: ({ row: { original: r } }) => (
      <span title="exploratory calls / tables the gold SQL reads">
        {r.exploratoryCalls} / {r.goldCount ?? "?"}
      </span>
    ),
    meta: { align: "right" },
  }),
  col.accessor("overExploration", {
    id: "over",
    header: "Over",
    cell: (c) => {
      const v = c.getValue();
      return v === null ? (
        "—"
      ) : (
        <span className={v > 0 ? "font-medium text-amber-700" : ""}>{v > 0 ? `+${v}` : v}</span>
      );
    },
    meta: { align: "right" },
  }),
  col.accessor("extraTableCount", {
    id: "extra",
    header: "Extra tables",
    cell: (c) => {
      const v = c.getValue();
      return v === null ? (
        <span className="text-zinc-500" title="needs gold tables (or a final SQL)">
          —
        </span>
      ) : v > 0 ? (
        <span className="font-medium text-red-700">{v}</span>
      ) : (
        0
      );
    },
    meta: { align: "right" },
  }),
  col.accessor("emptyProbeCount", {
    id: "empty",
    header: "Empty probes",
    cell: (c) => {
      const v = c.getValue();
      return v === null ? (
        <span className="text-zinc-500" title="no probe recorded its result">
          —
        </span>
      ) : (
        <span title="SQL probes whose result had no rows (SDE-SQL)">{v}</span>
      );
    },
    meta: { align: "right" },
  }),
  col.accessor("tokens", {
    id: "tokens",
    header: "Tokens",
    cell: (c) => {
      const v = c.getValue();
      return v === null ? (
        <span className="text-zinc-500" title="no token usage recorded">
          not recorded
        </span>
      ) : (
        <Tokens n={v} />
      );
    },
    meta: { align: "right" },
  }),
  col.display({
    id: "labels",
    header: "Labels",
    cell: ({ row: { original: r } }) => <LabelLinks labels={r.labels} />,
  }),
];

/** A trace's labels, each a filter of the table. */
function LabelLinks({ labels }: { labels: string | null }) {
  const [, setParams] = useQueryStates(tracesSearchParams, { shallow: false });
  if (!labels) return null;
  return (
    <span className="flex flex-wrap gap-1">
      {labels
        .split(",")
        .sort()
        .map((l) => (
          <button
            key={l}
            type="button"
            title={`only traces labelled ${l}`}
            onClick={() => void setParams({ label: l, page: 1 })}
            className="rounded bg-violet-100 px-1.5 py-0.5 text-xs text-violet-900 hover:bg-violet-200"
          >
            {l}
          </button>
        ))}
    </span>
  );
}

function Filters({ databases, difficulties }: { databases: string[]; difficulties: string[] }) {
  const [params, setParams] = useQueryStates(tracesSearchParams, { shallow: false });
  const toggle = (key: "failing" | "extra" | "over", label: string) => (
    <label className="flex items-center gap-1">
      <input
        type="checkbox"
        checked={params[key]}
        onChange={(e) => void setParams({ [key]: e.target.checked, page: 1 })}
      />{" "}
      {label}
    </label>
  );
  return (
    <div className="flex flex-wrap items-center gap-4 text-sm" data-testid="trace-filters">
      {toggle("failing", "failing only")}
      {toggle("extra", "with extra tables")}
      {toggle("over", "over-explored")}
      <QuestionFacets
        db={params.db}
        difficulty={params.difficulty}
        databases={databases}
        difficulties={difficulties}
        onChange={(patch) => void setParams({ ...patch, page: 1 })}
      />
      <form
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          const q = String(new FormData(e.currentTarget).get("q") ?? "").trim();
          void setParams({ q: q || null, page: 1 });
        }}
      >
        <input
          type="search"
          name="q"
          defaultValue={params.q ?? ""}
          aria-label="Search this run's traces"
          placeholder="search: words, tool:… table:…"
          className="w-64 rounded border border-zinc-300 px-2 py-1"
        />
      </form>
      {params.label && (
        <button
          type="button"
          className="rounded bg-violet-100 px-2 py-0.5 text-violet-900"
          onClick={() => void setParams({ label: null, page: 1 })}
        >
          label: {params.label} ×
        </button>
      )}
    </div>
  );
}

export function TracesTable({
  rows,
  total,
  pageSize,
  databases,
  difficulties,
  csvHref,
}: {
  rows: TraceListRow[];
  total: number;
  pageSize: number;
  databases: string[];
  difficulties: string[];
  csvHref: string;
}) {
  const [params, setParams] = useQueryStates(tracesSearchParams, { shallow: false });
  const sorting: SortingState = [{ id: params.sort, desc: params.dir === "desc" }];
  const pages = Math.max(1, Math.ceil(total / pageSize));
  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Table returns new functions each render by design
  const table = useReactTable({
    data: rows,
    columns,
    getCoreRowModel: getCoreRowModel(),
    manualSorting: true,
    manualPagination: true,
    enableSortingRemoval: false,
    state: { sorting },
    onSortingChange: (updater) => {
      const first = (typeof updater === "function" ? updater(sorting) : updater)[0];
      if (first && (traceSortKeys as readonly string[]).includes(first.id))
        void setParams({ sort: first.id as TraceSortKey, dir: first.desc ? "desc" : "asc", page: 1 });
    },
  });
  return (
    <div className="space-y-3">
      <div className="flex items-center justify-between gap-3">
        <Filters databases={databases} difficulties={difficulties} />
        <a className="text-sm text-blue-700 hover:underline" href={csvHref}>
          Download CSV
        </a>
      </div>
      <DataTable table={table} testId="traces-table" />
      <nav className="flex items-center gap-3 text-sm" aria-label="Pages">
        <button
          type="button"
          className="rounded border border-zinc-300 px-2 py-1 disabled:opacity-40"
          disabled={params.page <= 1}
          onClick={() => void setParams({ page: params.page - 1 })}
        >
          Previous
        </button>
        <span>
          Page {params.page} of {pages} · <Count n={total} /> traces
        </span>
        <button
          type="button"
          className="rounded border border-zinc-300 px-2 py-1 disabled:opacity-40"
          disabled={params.page >= pages}
          onClick={() => void setParams({ page: params.page + 1 })}
        >
          Next
        </button>
      </nav>
    </div>
  );
}
