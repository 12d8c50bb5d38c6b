import { connection } from "next/server";
import { Suspense } from "react";
import { createLoader, type SearchParams } from "nuqs/server";
import { RunsTable } from "@/components/runs/runs-table";
import { UploadPanel } from "@/components/runs/upload-panel";
import { getSql } from "@/lib/db/store";
import { listRunFacets, listRunsPage } from "@/lib/db/queries/runs";
import { RUNS_PAGE_SIZE, runsSearchParams } from "@/lib/url/runs";
import type { Metadata } from "next";

export const metadata: Metadata = { title: "Runs — Metron" };

const loadParams = createLoader(runsSearchParams);

export default function HomePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return (
    <div className="space-y-8">
      <UploadPanel />
      <section className="space-y-3">
        <h1 className="text-xl font-semibold">Runs</h1>
        <Suspense fallback={<p className="text-sm text-zinc-500">Loading runs…</p>}>
          <Runs searchParams={searchParams} />
        </Suspense>
      </section>
    </div>
  );
}

async function Runs({ searchParams }: { searchParams: Promise<SearchParams> }) {
  await connection();
  const params = await loadParams(searchParams);
  const sql = await getSql();
  // a page of the sorted runs: the table draws at most RUNS_PAGE_SIZE rows, however many runs the store holds
  const { rows, total, page } = await listRunsPage(sql, { ...params, pageSize: RUNS_PAGE_SIZE });
  const { systems, models } = await listRunFacets(sql);
  return (
    <RunsTable rows={rows} total={total} page={page} pageSize={RUNS_PAGE_SIZE} systems={systems} models={models} />
  );
}
