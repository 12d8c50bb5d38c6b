import { getSql } from "@/lib/db/store";
import { exportLabels, importLabels } from "@/lib/labels/labels";

/** Labels and notes as JSONL (`?run=` for one run's): a team's triage, to merge elsewhere. */
export async function GET(request: Request) {
  const run = new URL(request.url).searchParams.get("run") ?? undefined;
  const lines = await exportLabels(await getSql(), run);
  return new Response(lines.join("\n") + (lines.length ? "\n" : ""), {
    headers: {
      "Content-Type": "application/x-ndjson; charset=utf-8",
      "Content-Disposition": `attachment; filename="metron-labels${run ? `-${run}` : ""}.jsonl"`,
    },
  });
}

/** Merges exported labels and notes (JSONL body, at most 20 MB); answers what was added and what was not. */
export async function POST(request: Request) {
  const text = await request.text();
  if (text.length > 20_000_000) return Response.json({ error: "over 20 MB of labels" }, { status: 413 });
  return Response.json(await importLabels(await getSql(), text.split("\n")));
}
