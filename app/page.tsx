import { connection } from "next/server";
import { Suspense } from "react";
import { createLoader, type SearchParams } from "nuqs/server";
import { RunsTable } from "@/components/runs/runs-table";
import { UploadPanel } from "@/components/runs/upload-panel";
import { getSql } from "@/lib/db/store";
import { listRunFacets, listRuns } from "@/lib/db/queries/runs";
import { runsSearchParams } from "@/lib/url/runs";
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
  const rows = await listRuns(sql, params);
  const { systems, models } = await listRunFacets(sql);
  return <RunsTable rows={rows} systems={systems} models={models} />;
}
