/**
 * Assembling received spans (lib/otel/receiver.ts stores them) into Metron traces: a group is assembled when its
 * root span has arrived (a group keyed by its OTel trace) or when no span has arrived for METRON_OTLP_QUIET_MS, and
 * ingested through the normal path; a group assembled again (late spans) replaces the trace stored from it. The
 * server's timer (`startAssembler`) does it every few seconds and lets go of the bodies of spans whose trace is final.
 */
import type { Sql } from "@/lib/db/sql";
import { many, one, qb, write } from "@/lib/db/typed";
import { deleteTraces } from "@/lib/ingest/remove";
import { ingestAdapted } from "@/lib/ingest/ingest-auto";
import { labelQuestions } from "@/lib/trace/adapters";
import { assembleTrace, hasSteps, inWorkflowSession, workflowRoot, type FlatSpan } from "@/lib/trace/adapters/otlp";
import { fromJson, otlpKeepMs, otlpQuietMs } from "./stored-spans";

/** A span joins another group (its workflow's). */
const moveSpan = (tx: Sql, s: FlatSpan, group: string) =>
  write(
    tx,
    qb(tx)
      .updateTable("otlp_spans")
      .set({ group_key: group })
      .where("trace_id", "=", s.traceId)
      .where("span_id", "=", s.spanId),
  );

/**
 * OpenLLMetry's MCP instrumentation parents each MCP call under an `mcp.client.session` span that it starts when the
 * client connects: when the client connected outside the workflow, the calls of the workflow's session are in
 * another OTel trace, though they carry the workflow's name and association properties (seen in the harness suite,
 * issue 29). A workflow root's group adopts such spans from the other groups (same process, workflow and
 * association properties, inside the root's time: `inWorkflowSession`), stored or not — with `disableBatch` the
 * client's session root can arrive, and its group be stored, before the workflow's root. Two sessions of one workflow running at once in one process
 * with the same properties cannot be told apart this way: give each its own (`metron.question.id`, say).
 */
async function adoptWorkflowSpans(
  sql: Sql,
  group: string,
  spans: FlatSpan[],
  now: number,
): Promise<{ spans: FlatSpan[]; groups: string[] }> {
  const root = workflowRoot(spans);
  if (!root) return { spans: [], groups: [] };
  const rows = await many(
    sql,
    // Only spans kept for re-assembly (received within METRON_OTLP_KEEP_MS) can join: not the whole store's.
    qb(sql)
      .selectFrom("otlp_spans")
      .select(["body", "group_key as key"])
      .where("group_key", "!=", group)
      .where("received_at", ">=", now - otlpKeepMs())
      .where("body", "!=", "")
      .where("body", "like", `%"traceloop.workflow.name"%`),
  );
  const adopted = rows.map((r) => ({ key: r.key, s: fromJson(r.body) })).filter(({ s }) => inWorkflowSession(root, s));
  if (adopted.length === 0) return { spans: [], groups: [] };
  // The groups they leave are assembled again without them (a trace stored from one before is replaced or goes).
  const groups = [...new Set(adopted.map((a) => a.key))];
  await sql.transaction(async (tx) => {
    for (const { s } of adopted) await moveSpan(tx, s, group);
    for (const key of groups)
      await write(
        tx,
        qb(tx)
          .updateTable("otlp_groups")
          .set({ assembled_at: null })
          .where("group_key", "=", key)
          .where("assembled_at", "is not", null),
      );
  });
  return { spans: adopted.map(({ s }) => s), groups };
}

/**
 * The other way round, for a group assembled before its workflow's (both arrived in one export, say): its spans
 * that belong to a workflow root of another group move there, and that group is assembled (again).
 */
async function releaseToWorkflow(
  sql: Sql,
  group: string,
  spans: FlatSpan[],
  now: number,
): Promise<{ spans: FlatSpan[]; groups: string[] }> {
  const none = { spans: [], groups: [] };
  if (workflowRoot(spans) || !spans.some((s) => s.attrs["traceloop.workflow.name"] !== undefined)) return none;
  const roots = (
    await many(
      sql,
      qb(sql)
        .selectFrom("otlp_spans")
        .select(["body", "group_key as key"])
        .where("group_key", "!=", group)
        .where("received_at", ">=", now - otlpKeepMs())
        .where("body", "like", '%"parentSpanId":null%')
        .where("body", "like", '%"traceloop.workflow.name"%'),
    )
  ).map((r) => ({ key: r.key, root: fromJson(r.body) }));
  const moved: { span: FlatSpan; key: string }[] = [];
  for (const span of spans) {
    const home = roots.find(({ root }) => !root.parentSpanId && inWorkflowSession(root, span));
    if (home) moved.push({ span, key: home.key });
  }
  if (moved.length === 0) return none;
  const groups = [...new Set(moved.map((m) => m.key))];
  await sql.transaction(async (tx) => {
    for (const { span, key } of moved) await moveSpan(tx, span, key);
    // The workflow's group is assembled (again) with them.
    for (const key of groups)
      await write(tx, qb(tx).updateTable("otlp_groups").set({ assembled_at: null }).where("group_key", "=", key));
  });
  return { spans: moved.map((m) => m.span), groups };
}

export interface AssembleOutcome {
  group: string;
  inserted: number;
  duplicates: number;
  errors: string[];
  /** Why nothing was stored from the group, when it held no trace. */
  skipped?: string;
}

/** Assembles and ingests the given groups (or every group due: root seen, or quiet for METRON_OTLP_QUIET_MS). */
export async function assembleGroups(
  sql: Sql,
  openStore: () => Sql | Promise<Sql>,
  options: { groups?: string[]; now?: number } = {},
): Promise<AssembleOutcome[]> {
  const now = options.now ?? Date.now();
  const candidates = options.groups?.length
    ? options.groups
    : (
        await many(
          sql,
          qb(sql)
            .selectFrom("otlp_groups")
            .select("group_key as g")
            .where("assembled_at", "is", null)
            .where((eb) =>
              eb.or([
                eb.and([eb("root_seen", "=", 1), eb("group_key", "like", "trace:%")]),
                eb("last_span_at", "<=", now - otlpQuietMs()),
              ]),
            ),
        )
      ).map((r) => r.g);
  const due: string[] = [];
  for (const g of candidates) {
    const row = await one(
      sql,
      qb(sql).selectFrom("otlp_groups").select("assembled_at as a").where("group_key", "=", g),
    );
    if (row && row.a === null) due.push(g);
  }
  const outcomes: AssembleOutcome[] = [];
  for (const group of due) {
    // Claim the group first, so a second assembler (another request, the timer) does not store it twice.
    const claimed = await sql.transaction(
      async (tx) =>
        (
          await write(
            tx,
            qb(tx)
              .updateTable("otlp_groups")
              .set({ assembled_at: now })
              .where("group_key", "=", group)
              .where("assembled_at", "is", null),
          )
        ).changes === 1,
    );
    if (!claimed) continue;
    const spans = (
      await many(
        sql,
        qb(sql).selectFrom("otlp_spans").select("body").where("group_key", "=", group).where("body", "!=", ""),
      )
    ).map((r) => fromJson(r.body));
    const adopted = await adoptWorkflowSpans(sql, group, spans, now);
    spans.push(...adopted.spans);
    for (const g of adopted.groups) if (!due.includes(g)) due.push(g);
    const released = await releaseToWorkflow(sql, group, spans, now);
    if (released.spans.length) {
      spans.splice(0, spans.length, ...spans.filter((s) => !released.spans.includes(s)));
      for (const g of released.groups) if (!due.includes(g)) due.push(g);
    }
    const outcome: AssembleOutcome = { group, inserted: 0, duplicates: 0, errors: [] };
    const previous = await one(sql, qb(sql).selectFrom("otlp_groups").select("outcome").where("group_key", "=", group));
    const replaced = previous?.outcome
      ? ((JSON.parse(previous.outcome) as { traces?: StoredTrace[] }).traces ?? [])
      : [];
    let traces: StoredTrace[] = [];
    if (spans.length) {
      const own = await openStore();
      try {
        const trace = assembleTrace(spans); // a group that cannot be assembled fails alone, with its error
        labelQuestions([trace]); // as a file of the same spans is read
        if (!hasSteps(trace)) {
          // Nothing left to store (its calls joined their workflow's trace): a trace stored from it before goes.
          outcome.skipped = "no model call or tool call in its spans";
          for (const runId of new Set(replaced.map((t) => t.run)))
            await deleteTraces(
              own,
              runId,
              replaced.filter((t) => t.run === runId).map((t) => t.id),
            );
        } else {
          const report = await ingestAdapted(own, [trace], { source: "otlp", dataset: trace.run?.benchmark });
          outcome.inserted = report.inserted;
          outcome.duplicates = report.duplicates;
          outcome.errors = report.errors.map((e) => e.message);
          traces = await many(
            own,
            qb(own).selectFrom("traces").select(["id", "run_id as run"]).where("upload_id", "=", report.upload_id),
          );
          // A group assembled again (late spans): once the complete trace is stored, the one stored from fewer spans
          // goes.
          if (traces.length) {
            const stale = replaced.filter((t) => !traces.some((n) => n.id === t.id));
            for (const runId of new Set(stale.map((t) => t.run)))
              await deleteTraces(
                own,
                runId,
                stale.filter((t) => t.run === runId).map((t) => t.id),
              );
          } else traces = replaced;
        }
      } catch (e) {
        outcome.errors.push((e as Error).message);
      } finally {
        await own.close();
      }
    }
    await sql.transaction(async (tx) => {
      const stored = JSON.stringify({
        inserted: outcome.inserted,
        duplicates: outcome.duplicates,
        errors: outcome.errors,
        traces,
        ...(outcome.skipped ? { skipped: outcome.skipped } : {}),
      });
      await write(tx, qb(tx).updateTable("otlp_groups").set({ outcome: stored }).where("group_key", "=", group));
    });
    outcomes.push(outcome);
  }
  return outcomes;
}

interface StoredTrace {
  id: string;
  run: string;
}

/**
 * Span bodies of groups stored longer ago than METRON_OTLP_KEEP_MS are emptied: their trace is final. The span ids
 * stay, so a span sent again is still recognised.
 */
export async function forgetAssembledSpans(
  sql: Sql,
  now = Date.now(),
  /** Only groups assembled within this long before the keep period ended (the timer's calls); all at start. */
  windowMs = Number.POSITIVE_INFINITY,
): Promise<number> {
  const until = now - otlpKeepMs();
  const since = Number.isFinite(windowMs) ? until - windowMs : 0;
  return sql.transaction(
    async (tx) =>
      (
        await write(
          tx,
          qb(tx)
            .updateTable("otlp_spans")
            .set({ body: "" })
            .where("body", "!=", "")
            .where("group_key", "in", (eb) =>
              eb
                .selectFrom("otlp_groups")
                .select("otlp_groups.group_key")
                .where("assembled_at", "is not", null)
                .where("assembled_at", "<", until)
                .where("assembled_at", ">=", since),
            ),
        )
      ).changes,
  );
}

let timer: NodeJS.Timeout | null = null;

/** Told after groups were assembled (the server computes their runs' views once the traces stop coming). */
export type AfterAssembled = (outcomes: AssembleOutcome[]) => void;

/** The server's assembler: closes quiet groups every few seconds. */
export function startAssembler(
  sqlite: () => Sql | Promise<Sql>,
  openStore: () => Sql | Promise<Sql>,
  after?: AfterAssembled,
) {
  if (timer) return;
  const every = Math.min(5000, Math.max(500, Math.floor(otlpQuietMs() / 2)));
  let running = false;
  // The first call lets go of every final trace's span bodies; later ones only of the groups that just became final
  // (a day's window: each call need not walk every span the store ever received).
  let window = Number.POSITIVE_INFINITY;
  timer = setInterval(() => {
    if (running) return;
    running = true;
    void Promise.resolve(sqlite())
      .then(async (store) => {
        const outcomes = await assembleGroups(store, openStore);
        if (outcomes.length) after?.(outcomes);
        await forgetAssembledSpans(store, Date.now(), window);
        window = 24 * 3600 * 1000;
      })
      .catch(() => undefined)
      .finally(() => (running = false));
  }, every);
  timer.unref();
}
