"use client";

import { createColumnHelper, getCoreRowModel, useReactTable, type SortingState } from "@tanstack/react-table";
import Link from "next/link";
import { useQueryStates } from "nuqs";
import { DataTable } from "@/components/ui/data-table";
import { FacetSelect } from "@/components/ui/facet-select";
import { LocalTime } from "@/components/ui/local-time";
import { SystemChip } from "@/components/ui/system-chip";
import { SimulatedBadge } from "@/components/ui/simulated-badge";
import { Count, Percent, Tokens } from "@/components/ui/locale";
import type { RunListRow } from "@/lib/db/queries/runs";
import { accuracyOf, overExplorationOf } from "@/lib/metrics/run-metrics";
import { runPath, runsSearchParams, runSortKeys, type RunSortKey } from "@/lib/url/runs";

const col = createColumnHelper<RunListRow>();

const columns = [
  col.accessor("name", {
    id: "name",
    header: "Run",
    cell: (c) => (
      <span className="flex items-center gap-1.5">
        <Link className="font-medium text-blue-700 hover:underline" href={runPath(c.row.original.id)}>
          {c.getValue()}
        </Link>
        {c.row.original.simulated ? <SimulatedBadge /> : null}
        {c.row.original.archivedAt ? (
          <span className="rounded bg-zinc-200 px-1 text-xs text-zinc-700">archived</span>
        ) : null}
      </span>
    ),
  }),
  col.accessor("system", { id: "system", header: "System", cell: (c) => <SystemChip system={c.getValue()} /> }),
  col.accessor("model", { id: "model", header: "Model" }),
  col.accessor("traces", {
    id: "traces",
    header: "Traces",
    cell: (c) => <Count n={c.getValue()} />,
    meta: { align: "right" },
  }),
  col.accessor("questions", {
    id: "questions",
    header: "Questions",
    cell: (c) => <Count n={c.getValue()} />,
    meta: { align: "right" },
  }),
  col.display({
    id: "correct",
    header: "EX",
    enableSorting: true,
    cell: ({ row: { original: r } }) => {
      const ex = accuracyOf(r);
      if (!ex)
        return (
          <span className="text-xs text-zinc-500" title="no outcome recorded and not evaluated">
            not evaluated
          </span>
        );
      return (
        <span
          title={`${ex.source}: ${Math.round(ex.share * ex.n)} of ${ex.n} ${ex.n === 1 ? "trace" : "traces"} correct`}
        >
          <Percent share={ex.share} />
          {ex.source === "recorded" ? <sup className="text-zinc-500"> rec</sup> : null}
        </span>
      );
    },
    meta: { align: "right" },
  }),
  col.display({
    id: "over",
    header: "Over-exploration",
    enableSorting: true,
    cell: ({ row: { original: r } }) => {
      const over = overExplorationOf(r);
      return over === null ? (
        <span className="text-xs text-zinc-500" title="no gold tables: link the run to a dataset">
          no gold tables
        </span>
      ) : (
        <span title={`(${r.exploratoryWithGold} exploratory − ${r.goldSum} gold) / ${r.goldSum} gold`}>
          <Percent share={over} />
        </span>
      );
    },
    meta: { align: "right" },
  }),
  col.display({
    id: "tokens",
    header: "Tokens in / out",
    enableSorting: true,
    cell: ({ row: { original: r } }) =>
      r.tokensRecorded === 0 ? (
        <span className="text-xs text-zinc-500" title="no trace of this run recorded token usage">
          not recorded
        </span>
      ) : (
        <>
          <Tokens n={r.inputTokens} /> / <Tokens n={r.outputTokens} />
        </>
      ),
    meta: { align: "right" },
  }),
  col.accessor("createdAt", {
    id: "created",
    header: "Uploaded",
    cell: (c) => <LocalTime iso={c.getValue()} />,
  }),
];

/** The runs, a page at a time (`total` runs match the filters; `page` is the one shown, after clamping). */
export function RunsTable({
  rows,
  total,
  page,
  pageSize,
  systems,
  models,
}: {
  rows: RunListRow[];
  total: number;
  page: number;
  pageSize: number;
  systems: string[];
  models: string[];
}) {
  const [params, setParams] = useQueryStates(runsSearchParams, { shallow: false });
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const sorting: SortingState = [{ id: params.sort, desc: params.dir === "desc" }];
  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Table returns new functions each render by design
  const table = useReactTable({
    data: rows,
    columns,
    getCoreRowModel: getCoreRowModel(),
    manualSorting: true,
    enableSortingRemoval: false,
    state: { sorting },
    onSortingChange: (updater) => {
      const next = typeof updater === "function" ? updater(sorting) : updater;
      const first = next[0];
      if (first && (runSortKeys as readonly string[]).includes(first.id))
        void setParams({ sort: first.id as RunSortKey, dir: first.desc ? "desc" : "asc", page: null });
    },
  });
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-3 text-sm">
        <label className="flex items-center gap-2">
          <span className="text-zinc-600">System</span>
          <FacetSelect
            label="system"
            value={params.system}
            options={systems}
            onChange={(v) => void setParams({ system: v, page: null })}
          />
        </label>
        <label className="flex items-center gap-2">
          <span className="text-zinc-600">Model</span>
          <FacetSelect
            label="model"
            value={params.model}
            options={models}
            onChange={(v) => void setParams({ model: v, page: null })}
          />
        </label>
        <label className="flex items-center gap-1 text-zinc-600">
          <input
            type="checkbox"
            checked={params.archived}
            onChange={(e) => void setParams({ archived: e.target.checked || null, page: null })}
          />{" "}
          show archived runs
        </label>
        <span className="text-zinc-500" data-testid="runs-count">
          {total} {total === 1 ? "run" : "runs"}
        </span>
      </div>
      <DataTable table={table} testId="runs-table" />
      {pages > 1 && (
        <nav className="flex items-center gap-3 text-sm" aria-label="Pages of runs">
          <button
            type="button"
            className="rounded border border-zinc-300 px-2 py-1 disabled:opacity-40"
            disabled={page <= 1}
            onClick={() => void setParams({ page: page - 1 })}
          >
            Previous
          </button>
          <span>
            Page {page} of {pages} · runs {(page - 1) * pageSize + 1}–{Math.min(total, page * pageSize)} of {total}
          </span>
          <button
            type="button"
            className="rounded border border-zinc-300 px-2 py-1 disabled:opacity-40"
            disabled={page >= pages}
            onClick={() => void setParams({ page: page + 1 })}
          >
            Next
          </button>
        </nav>
      )}
    </div>
  );
}
