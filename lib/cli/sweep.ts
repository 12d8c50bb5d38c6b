/**
 * `metron sweep`: run a directive variant and model over many questions of a dataset in this process (the jobs
 * are durable: a killed sweep resumes with `metron sweep resume RUN`, or in a running server), and
 * `metron sweep status|pause|resume|cancel RUN`.
 */
import { parseArgs } from "node:util";
import { openStore, storeOpener } from "@/lib/db/store";
import { variants, type Variant } from "@/lib/environment/directives";
import { providerIds, type ProviderId } from "@/lib/agent/providers";
import { createExperiment, CurationError } from "@/lib/ingest/curate";
import {
  controlSweep,
  createSweep,
  setSweepBudget,
  sweepStatus,
  SweepError,
  workSweepToEnd,
  type Budget,
  type Selection,
  type SweepStatus,
} from "@/lib/agent/sweeps";
import { closeSharedSandbox } from "@/lib/sandbox/sandbox";
import { flushAgentSpans } from "@/lib/otel/emit";
import { UsageError } from "./args";
import { resolveRun } from "./run-commands";

const number = (name: string, v: string | undefined, integer = false): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)))
    throw new UsageError(`--${name} must be a positive ${integer ? "integer" : "number"}, got "${v}"`);
  return n;
};

function budgetOf(values: Record<string, string | boolean | undefined>): Budget {
  const minutes = number("max-minutes", values["max-minutes"] as string | undefined);
  return {
    ...(values["max-cost"] !== undefined ? { maxCostUsd: number("max-cost", values["max-cost"] as string) } : {}),
    ...(values["max-tokens"] !== undefined
      ? { maxTokens: number("max-tokens", values["max-tokens"] as string, true) }
      : {}),
    ...(minutes !== undefined ? { maxWallMs: minutes * 60_000 } : {}),
  };
}

function summary(s: SweepStatus) {
  return {
    run_id: s.runId,
    name: s.name,
    simulated: s.provider === "simulated",
    state: s.state,
    jobs: s.jobs.total,
    done: s.jobs.done,
    failed: s.jobs.failed,
    cancelled: s.jobs.cancelled,
    remaining: s.jobs.queued + s.jobs.running,
    tokens: s.tokens,
    jobs_without_usage: s.tokensUnreported,
    stop_reason: s.stopReason,
    errors: s.errors,
    cost_usd: s.costUsd,
    stopped_by: s.stoppedBy,
    outcomes: s.outcomes,
  };
}

function print(s: SweepStatus, json: boolean): void {
  if (json) {
    console.log(JSON.stringify(summary(s), null, 2));
    return;
  }
  const o = s.outcomes;
  console.log(
    [
      `sweep ${s.name}${s.provider === "simulated" ? " (simulated)" : ""} (run ${s.runId}): ${s.state}${s.stoppedBy ? ` by ${s.stoppedBy}` : ""}${s.stopReason ? ` (${s.stopReason})` : ""}`,
      `  jobs: ${s.jobs.done} done, ${s.jobs.failed} failed, ${s.jobs.cancelled} cancelled, ${s.jobs.queued + s.jobs.running} left of ${s.jobs.total}`,
      `  tokens ${s.tokens === null ? "not recorded (the provider reported no usage)" : s.tokens}${s.tokensUnreported && s.tokens !== null ? ` (${s.tokensUnreported} jobs reported no usage)` : ""}, cost ${s.provider === "simulated" ? "none (simulated: free)" : s.costUsd === null ? "not priced" : `$${s.costUsd.toFixed(4)}`}`,
      s.sourceRunId
        ? `  against ${s.sourceRunName}: ${o.fixed} fixed, ${o.regressed} regressed, ${o["still right"]} still right, ${o["still wrong"]} still wrong, ${o.unknown} not judged`
        : "",
    ]
      .filter(Boolean)
      .join("\n"),
  );
}

export async function runSweepCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "status" || sub === "pause" || sub === "resume" || sub === "cancel") return control(sub, rest);
  const { values } = parseArgs({
    args: argv,
    options: {
      dataset: { type: "string" },
      "from-run": { type: "string" },
      failing: { type: "boolean", default: false },
      questions: { type: "string" },
      all: { type: "boolean", default: false },
      provider: { type: "string", default: "simulated" },
      model: { type: "string" },
      harness: { type: "string" },
      variant: { type: "string", default: "computed" },
      samples: { type: "string" },
      concurrency: { type: "string" },
      "max-cost": { type: "string" },
      "max-tokens": { type: "string" },
      "max-minutes": { type: "string" },
      "max-steps": { type: "string" },
      name: { type: "string" },
      experiment: { type: "string" },
      detach: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    },
  });
  const list = (v: string | undefined) =>
    (v ?? "")
      .split(",")
      .map((x) => x.trim())
      .filter(Boolean);
  if (!values.dataset) throw new UsageError("--dataset D is required");
  const harnesses = list(values.harness);
  const models = list(values.model);
  if (!harnesses.length && !models.length) throw new UsageError("--model M (or --harness NAME) is required");
  if (harnesses.length && models.length)
    throw new UsageError("--harness runs each profile's own model: give --harness or --model, not both");
  if (!harnesses.length && !(providerIds as readonly string[]).includes(values.provider!))
    throw new UsageError(`--provider must be one of ${providerIds.join(", ")}`);
  const chosenVariants = list(values.variant);
  for (const v of chosenVariants)
    if (!(variants as readonly string[]).includes(v))
      throw new UsageError(`--variant must be one or more of ${variants.join(", ")} (comma-separated)`);
  const chosen = [values.failing, values.questions !== undefined, values.all].filter(Boolean).length;
  if (chosen !== 1) throw new UsageError("choose the questions with exactly one of --failing, --questions, --all");
  // The grid: every variant × model (or harness profile), one sweep and one run each (issue 31).
  const agents = harnesses.length ? harnesses.map((h) => ({ harness: h })) : models.map((m) => ({ model: m }));
  const grid = chosenVariants.flatMap((variant) => agents.map((a) => ({ variant: variant as Variant, ...a })));
  const sql = await openStore();
  const runIds: string[] = [];
  let experimentId: string | null = null;
  let sourceRunId: string | undefined;
  try {
    sourceRunId = values["from-run"] ? await resolveRun(sql, values["from-run"]) : undefined;
    if (values.failing && !sourceRunId) throw new UsageError("--failing needs --from-run R");
    const selection: Selection = values.failing
      ? { kind: "failing", runId: sourceRunId! }
      : values.all
        ? { kind: "all" }
        : {
            kind: "ids",
            ids: values
              .questions!.split(",")
              .map((s) => s.trim())
              .filter(Boolean),
          };
    const maxSteps = number("max-steps", values["max-steps"], true);
    for (const cell of grid) {
      const name = values.name
        ? grid.length > 1
          ? `${values.name} · ${cell.variant} · ${"harness" in cell ? cell.harness : cell.model}`
          : values.name
        : undefined;
      const { runId } = await createSweep(sql, {
        dataset: values.dataset,
        sourceRunId,
        selection,
        provider: values.provider as ProviderId,
        model: "model" in cell ? cell.model! : "",
        ...("harness" in cell ? { harness: cell.harness } : {}),
        variant: cell.variant,
        samples: number("samples", values.samples, true),
        concurrency: number("concurrency", values.concurrency, true),
        budget: budgetOf(values),
        ...(maxSteps ? { limits: { maxSteps } } : {}),
        ...(name ? { name } : {}),
        createdBy: "cli",
      });
      runIds.push(runId);
      console.error(`sweep started: run ${runId}${values.detach ? " (a running server works it)" : ""}`);
    }
    // A grid is saved as a named experiment: its figures are those runs' (the Experiments page, ?experiment=ID).
    if (grid.length > 1 || values.experiment)
      experimentId = await createExperiment(
        sql,
        values.experiment ?? `Grid ${new Date().toISOString().replace("T", " ").slice(0, 19)} UTC`,
        runIds,
      );
  } catch (e) {
    if (e instanceof SweepError || e instanceof CurationError) throw new UsageError(e.message);
    throw e;
  } finally {
    await sql.close();
  }
  if (experimentId)
    console.error(`experiment ${experimentId}: ${runIds.length} runs (open /experiments?experiment=${experimentId})`);
  if (!values.detach) for (const runId of runIds) await work(runId);
  for (const runId of runIds) await printStatus(runId, values.json);
  return 0;
}

async function work(runId: string): Promise<void> {
  try {
    await workSweepToEnd(storeOpener(), runId);
  } finally {
    await closeSharedSandbox();
    // Spans still buffered by the batch processor are sent before the process exits, not lost with it.
    await flushAgentSpans();
  }
}

async function printStatus(runId: string, json: boolean): Promise<number> {
  const sql = await openStore();
  try {
    print((await sweepStatus(sql, runId))!, json);
  } finally {
    await sql.close();
  }
  return 0;
}

async function control(action: "status" | "pause" | "resume" | "cancel", argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: "boolean", default: false },
      detach: { type: "boolean", default: false },
      "max-cost": { type: "string" },
      "max-tokens": { type: "string" },
      "max-minutes": { type: "string" },
    },
  });
  if (positionals.length !== 1) throw new UsageError(`sweep ${action} takes one run (id or name)`);
  const sql = await openStore();
  let runId: string;
  try {
    runId = await resolveRun(sql, positionals[0]);
    const status = await sweepStatus(sql, runId);
    if (!status) throw new UsageError(`run ${positionals[0]} is not a sweep`);
    if (action !== "status") {
      const raised = budgetOf(values);
      if (action === "resume" && Object.keys(raised).length)
        await setSweepBudget(sql, runId, { ...status.budget, ...raised });
      await controlSweep(sql, runId, action);
    }
  } catch (e) {
    if (e instanceof SweepError) throw new UsageError(e.message);
    throw e;
  } finally {
    await sql.close();
  }
  if (action === "resume" && !values.detach) await work(runId);
  return printStatus(runId, values.json);
}
