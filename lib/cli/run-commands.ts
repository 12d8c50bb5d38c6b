import { parseArgs } from "node:util";
import { openStore } from "@/lib/db/store";
import { compareModes, numericModes, type CompareMode, type NumericMode } from "@/lib/eval/compare";
import { evaluateRun } from "@/lib/eval/evaluate-run";
import { recomputeRun } from "@/lib/ingest/recompute";
import { computeViewsAhead } from "./views-ahead";
import type { Sql } from "@/lib/db/sql";
import { countN, many, qb } from "@/lib/db/typed";
import { getRun } from "@/lib/db/queries/runs";
import { UsageError } from "./args";

export async function resolveRun(sql: Sql, ref: string): Promise<string> {
  const rows = await many(
    sql,
    qb(sql)
      .selectFrom("runs")
      .select("id")
      .where((eb) => eb.or([eb("id", "=", ref), eb("name", "=", ref)])),
  );
  if (rows.length === 0) {
    // Not a misuse of the command (no usage text): a name that is not there, with the runs it may have meant.
    const all = await many(sql, qb(sql).selectFrom("runs").select(["id", "name"]).orderBy("name"));
    const near = all.filter((r) => r.name.toLowerCase().includes(ref.toLowerCase()));
    throw new Error(
      `no run with id or name "${ref}"` +
        (near.length
          ? `; runs whose name holds it: ${near
              .slice(0, 5)
              .map((r) => `${r.id} "${r.name}"`)
              .join(", ")}${near.length > 5 ? ", …" : ""}`
          : ""),
    );
  }
  if (rows.length > 1)
    throw new Error(
      `"${ref}" names ${rows.length} runs (of different systems or models): give the run id (${rows.map((r) => r.id).join(", ")})`,
    );
  return rows[0].id;
}

export async function runRecomputeCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      run: { type: "string", multiple: true },
      all: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    },
  });
  const sql = await openStore();
  try {
    const ids = values.all
      ? (await many(sql, qb(sql).selectFrom("runs").select("id"))).map((r) => r.id)
      : await Promise.all((values.run ?? []).map((r) => resolveRun(sql, r)));
    if (ids.length === 0) throw new UsageError("give --run R (repeatable) or --all");
    const out = [];
    for (const id of ids) out.push({ run_id: id, ...(await recomputeRun(sql, id)) });
    console.log(
      values.json
        ? JSON.stringify(out, null, 2)
        : out.map((r) => `run ${r.run_id}: ${r.traces} traces recomputed`).join("\n"),
    );
    await computeViewsAhead(sql, ids, values.json!);
  } finally {
    await sql.close();
  }
  return 0;
}

export async function runEvaluateCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      run: { type: "string" },
      mode: { type: "string" },
      numeric: { type: "string", default: "exact" },
      json: { type: "boolean", default: false },
    },
  });
  if (!values.run) throw new UsageError("--run R is required");
  if (values.mode !== undefined && !(compareModes as readonly string[]).includes(values.mode))
    throw new UsageError(`--mode must be one of ${compareModes.join(", ")}`);
  if (!(numericModes as readonly string[]).includes(values.numeric!))
    throw new UsageError(`--numeric must be one of ${numericModes.join(", ")}`);
  const sql = await openStore();
  try {
    const runId = await resolveRun(sql, values.run);
    let last = 0;
    const tty = process.stderr.isTTY === true;
    const { counts } = await evaluateRun(sql, runId, {
      mode: values.mode as CompareMode | undefined,
      numeric: values.numeric as NumericMode,
      onProgress: (done, total) => {
        if (!values.json && (done === total || Date.now() - last > 1000)) {
          last = Date.now();
          // On a terminal the line is rewritten in place; in a log, one line per update (never run together).
          process.stderr.write(tty ? `\revaluated ${done}/${total}` : `evaluated ${done}/${total}\n`);
        }
      },
    });
    // Why traces were not evaluated, with what to do: a count alone says nothing (issue 30).
    const reasons = await many(
      sql,
      qb(sql)
        .selectFrom("traces")
        .select(["ex_error as reason", countN])
        .where("run_id", "=", runId)
        .where("ex_outcome", "=", "not_evaluated")
        .groupBy("ex_error")
        .orderBy((eb) => eb.fn.countAll(), "desc"),
    );
    const hint = (reason: string | null) =>
      reason === "the run is not linked to a dataset" ? `: link it with metron run edit ${runId} --dataset NAME` : "";
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    const nothingJudged = total > 0 && counts.not_evaluated === total;
    // Simulated data is labelled simulated wherever it shows: its outcomes are the simulated policy's, not a model's.
    const config = (await getRun(sql, runId))?.config as { simulated?: unknown } | null | undefined;
    const simulated = Boolean(config?.simulated);
    if (values.json)
      console.log(
        JSON.stringify(
          {
            run_id: runId,
            simulated,
            ...counts,
            not_evaluated_reasons: reasons.map((r) => ({ reason: r.reason, traces: Number(r.n) })),
          },
          null,
          2,
        ),
      );
    else {
      if (tty) process.stderr.write("\n");
      if (simulated) console.log("a simulated run: these outcomes are of Metron's simulated policy, not a model");
      console.log(
        Object.entries(counts)
          .map(([k, v]) => `${k}: ${v}`)
          .join("  "),
      );
      for (const r of reasons)
        console.log(
          `  not evaluated, ${Number(r.n)} ${Number(r.n) === 1 ? "trace" : "traces"}: ${r.reason ?? "no reason recorded"}${hint(r.reason)}`,
        );
    }
    await computeViewsAhead(sql, [runId], values.json!);
    // Nothing could be judged: the command did not do what it was asked.
    if (nothingJudged) return 1;
  } finally {
    await sql.close();
  }
  return 0;
}
