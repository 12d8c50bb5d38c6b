import Link from "next/link";
import { readerFormats } from "@/components/ui/reader-locale";
import { SimulatedBadge } from "@/components/ui/simulated-badge";
import type { DatabaseListRow, DatasetListRow, QuestionListRow } from "@/lib/db/queries/datasets";

const th = "px-3 py-2 text-left text-xs font-medium uppercase tracking-wide text-zinc-500";
const td = "px-3 py-1.5";

export async function DatasetList({
  datasets,
  selected,
  simulated,
}: {
  datasets: DatasetListRow[];
  selected: string | null;
  /** The id of the simulated demo's generated dataset, labelled so. */
  simulated: string;
}) {
  const f = await readerFormats();
  if (datasets.length === 0) {
    return (
      <p className="text-sm text-zinc-600">
        No dataset yet. Import one with{" "}
        <code className="rounded bg-zinc-100 px-1">
          npm run metron -- dataset import --name N --format bird|spider|spider2-lite --questions F --databases DIR
        </code>{" "}
        (see docs/cli.md).
      </p>
    );
  }
  return (
    <ul className="flex flex-wrap gap-2 text-sm">
      {datasets.map((d) => (
        <li key={d.id}>
          <Link
            href={`/datasets?dataset=${encodeURIComponent(d.id)}`}
            className={`block rounded border px-3 py-2 ${d.id === selected ? "border-zinc-900 bg-white" : "border-zinc-200 bg-white hover:border-zinc-400"}`}
          >
            <span className="font-medium">{d.name}</span>{" "}
            {d.id === simulated && (
              <>
                <SimulatedBadge />{" "}
              </>
            )}
            <span className="text-zinc-500">
              {d.format} · {f.counted(d.questionCount, "question")} · {f.counted(d.databases, "database")}
              {d.schemaOnly ? ` (${d.schemaOnly} schema-only)` : ""} · {f.counted(d.runs, "run")}
            </span>
          </Link>
        </li>
      ))}
    </ul>
  );
}

export async function DatabaseTable({ rows }: { rows: DatabaseListRow[] }) {
  const f = await readerFormats();
  return (
    <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white">
      <table className="w-full text-sm" data-testid="databases-table">
        <thead className="border-b border-zinc-200 bg-zinc-50">
          <tr>
            {["Database", "Tables", "Columns", "Rows", "Questions", "Kind", "Size", "SHA-256"].map((h) => (
              <th key={h} className={th}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.dbId} className="border-b border-zinc-100 last:border-0">
              <td className={`${td} font-mono`}>{r.dbId}</td>
              <td className={`${td} tabular-nums`}>{r.tableCount}</td>
              <td className={`${td} tabular-nums`}>{r.columnCount}</td>
              <td className={`${td} tabular-nums`}>{r.schemaOnly ? "—" : f.count(r.rowCount)}</td>
              <td className={`${td} tabular-nums`}>{r.questions}</td>
              <td className={td}>
                {r.schemaOnly ? (
                  <span
                    className="rounded bg-amber-100 px-1.5 py-0.5 text-xs text-amber-800"
                    title="built from the schema only: query results are empty, execution accuracy is not evaluated"
                  >
                    schema-only ({r.source})
                  </span>
                ) : (
                  "SQLite with rows"
                )}
              </td>
              <td className={`${td} tabular-nums`}>{f.bytes(r.sizeBytes)}</td>
              <td className={`${td} font-mono text-xs text-zinc-500`} title={r.sha256}>
                {r.sha256.slice(0, 12)}…
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function QuestionTable({ rows }: { rows: QuestionListRow[] }) {
  return (
    <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white">
      <table className="w-full text-sm" data-testid="questions-table">
        <thead className="border-b border-zinc-200 bg-zinc-50">
          <tr>
            {["Id", "Database", "Question", "Difficulty", "Gold tables"].map((h) => (
              <th key={h} className={th}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((q) => (
            <tr key={q.questionId} className="border-b border-zinc-100 align-top last:border-0">
              <td className={`${td} font-mono`}>{q.questionId}</td>
              <td className={`${td} font-mono`}>{q.dbId}</td>
              <td className={`${td} max-w-xl`}>
                {q.text || <span className="text-zinc-500">(no question text: gold file)</span>}
              </td>
              <td className={td}>{q.difficulty ?? "—"}</td>
              <td className={td}>
                {q.goldTables ? (
                  <span title={`by ${q.goldTablesMethod}`}>
                    {(JSON.parse(q.goldTables) as string[]).join(", ")}{" "}
                    <span className="text-xs text-zinc-500">{q.goldTablesMethod}</span>
                  </span>
                ) : (
                  <span className="text-xs text-red-700" title={q.goldTablesError ?? ""}>
                    gold SQL fails: {q.goldTablesError?.slice(0, 60)}
                  </span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
