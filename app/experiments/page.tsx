import { connection } from "next/server";
import { Suspense } from "react";
import { OverviewCharts } from "@/components/compare/overview-charts";
import { OverviewMatrix } from "@/components/compare/overview-matrix";
import { getDb } from "@/lib/db/client";
import { listOverviewRuns } from "@/lib/db/queries/overview";
import { listTraceUnits } from "@/lib/db/queries/units";
import { buildOverview } from "@/lib/metrics/overview";

export default function ExperimentsPage() {
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-xl font-semibold">Experiments</h1>
        <p className="text-sm text-zinc-600">Every run, by dataset: a model × system matrix with 95% bootstrap intervals over questions, and the Sophrosyne figures. <a className="text-blue-700 hover:underline" href="/api/export/overview.csv">Download CSV</a></p>
      </div>
      <Suspense fallback={<p className="text-sm text-zinc-500">Loading…</p>}>
        <Overview />
      </Suspense>
    </div>
  );
}

async function Overview() {
  await connection();
  const db = getDb();
  const groups = buildOverview(listOverviewRuns(db), (id) => listTraceUnits(db, id));
  if (groups.length === 0) return <p className="text-sm text-zinc-600">No runs yet: upload traces on the home page.</p>;
  return groups.map((g) => (
    <section key={g.group} className="space-y-3" aria-label={g.group}>
      <h2 className="text-lg font-semibold">{g.group}</h2>
      <OverviewMatrix g={g} />
      <OverviewCharts g={{ group: g.group, charts: g.charts }} />
    </section>
  ));
}
