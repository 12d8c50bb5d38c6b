import type { Metadata } from "next";
import { notFound } from "next/navigation";
import Link from "next/link";
import { SweepForm } from "@/components/sweeps/sweep-form";
import { sweepFormSetup } from "@/lib/agent/sweeps";
import { connection } from "next/server";
import { Suspense } from "react";
import { createLoader, type SearchParams } from "nuqs/server";
import { DatabaseTable, DatasetList, QuestionTable } from "@/components/datasets/dataset-view";
import { DatasetImport } from "@/components/datasets/dataset-import";
import { getSql } from "@/lib/db/store";
import { listDatabases, listDatasets, listQuestions } from "@/lib/db/queries/datasets";
import { datasetsSearchParams, QUESTIONS_PAGE_SIZE } from "@/lib/url/datasets";

const loadParams = createLoader(datasetsSearchParams);

export const metadata: Metadata = { title: "Datasets — Metron" };

// An unknown ?dataset= answers 404 before the streamed body starts.
export default async function DatasetsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  await connection();
  const { dataset } = await loadParams(searchParams);
  if (dataset && !(await listDatasets(await getSql())).some((d) => d.id === dataset)) notFound();
  return (
    <div className="space-y-6">
      <h1 className="text-xl font-semibold">Datasets</h1>
      <DatasetImport />
      <Suspense fallback={<p className="text-sm text-zinc-500">Loading…</p>}>
        <Datasets searchParams={searchParams} />
      </Suspense>
    </div>
  );
}

async function Datasets({ searchParams }: { searchParams: Promise<SearchParams> }) {
  await connection();
  const { dataset, page } = await loadParams(searchParams);
  const sql = await getSql();
  const datasets = await listDatasets(sql);
  const selected = datasets.find((d) => d.id === dataset) ?? datasets[0];
  const questions = selected ? await listQuestions(sql, selected.id, page, QUESTIONS_PAGE_SIZE) : null;
  const pages = questions ? Math.max(1, Math.ceil(questions.total / QUESTIONS_PAGE_SIZE)) : 1;
  const href = (p: number) => `/datasets?dataset=${encodeURIComponent(selected!.id)}&page=${p}`;
  return (
    <>
      <DatasetList datasets={datasets} selected={selected?.id ?? null} />
      {selected && questions && (
        <>
          <SweepForm {...await sweepFormSetup(sql, selected.id)} />
          <section className="space-y-2">
            <h2 className="font-semibold">Databases of {selected.name}</h2>
            <DatabaseTable rows={await listDatabases(sql, selected.id)} />
          </section>
          <section className="space-y-2">
            <h2 className="font-semibold">Questions</h2>
            <QuestionTable rows={questions.rows} />
            <nav className="flex items-center gap-3 text-sm" aria-label="Pages">
              {page > 1 ? (
                <Link className="rounded border border-zinc-300 px-2 py-1" href={href(page - 1)}>
                  Previous
                </Link>
              ) : null}
              <span>
                Page {page} of {pages} · {questions.total} questions
              </span>
              {page < pages ? (
                <Link className="rounded border border-zinc-300 px-2 py-1" href={href(page + 1)}>
                  Next
                </Link>
              ) : null}
            </nav>
          </section>
        </>
      )}
    </>
  );
}
