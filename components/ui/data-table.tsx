"use client";

import { flexRender, type Table } from "@tanstack/react-table";

/** Renders a @tanstack/react-table instance; sorting and paging are the caller's (server-side, in the URL). */
export function DataTable<T>({ table, testId }: { table: Table<T>; testId?: string }) {
  return (
    <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white">
      <table className="w-full text-sm" data-testid={testId}>
        <thead className="border-b border-zinc-200 bg-zinc-50 text-left text-xs uppercase tracking-wide text-zinc-500">
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => {
                const sorted = header.column.getIsSorted();
                const align =
                  (header.column.columnDef.meta as { align?: string } | undefined)?.align === "right"
                    ? "text-right"
                    : "";
                return (
                  <th
                    key={header.id}
                    className={`px-3 py-2 font-medium ${align}`}
                    aria-sort={sorted ? (sorted === "asc" ? "ascending" : "descending") : undefined}
                  >
                    {header.column.getCanSort() ? (
                      <button
                        type="button"
                        onClick={header.column.getToggleSortingHandler()}
                        className="inline-flex items-center gap-1 uppercase hover:text-zinc-900"
                      >
                        {flexRender(header.column.columnDef.header, header.getContext())}
                        <span aria-hidden className="w-3">
                          {sorted === "asc" ? "▲" : sorted === "desc" ? "▼" : ""}
                        </span>
                      </button>
                    ) : (
                      flexRender(header.column.columnDef.header, header.getContext())
                    )}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id} className="border-b border-zinc-100 last:border-0 hover:bg-zinc-50">
              {row.getVisibleCells().map((cell) => {
                const align =
                  (cell.column.columnDef.meta as { align?: string } | undefined)?.align === "right"
                    ? "text-right tabular-nums"
                    : "";
                return (
                  <td key={cell.id} className={`px-3 py-2 ${align}`}>
                    {flexRender(cell.column.columnDef.cell, cell.getContext())}
                  </td>
                );
              })}
            </tr>
          ))}
          {table.getRowModel().rows.length === 0 && (
            <tr>
              <td colSpan={table.getAllLeafColumns().length} className="px-3 py-8 text-center text-zinc-500">
                Nothing here yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
