/**
 * The OTLP/HTTP trace receiver behind `POST /v1/traces`. Spans are stored as they arrive (a span sent again is not
 * stored twice), grouped into agent traces (lib/trace/adapters/otlp.ts), and a group is assembled into one Metron
 * trace and ingested through the normal path when its root span has arrived (a group keyed by its OTel trace), or
 * when no span has arrived for METRON_OTLP_QUIET_MS (a conversation spanning several OTel traces, or a trace whose
 * root never comes). A span that arrives after its group was stored (a slow tool call that ends after its agent, a
 * span exporter that sends each span alone) is kept and the group assembled again: the stored trace is replaced by
 * the complete one, for METRON_OTLP_KEEP_MS after the first assembly; later than that it is refused and counted in
 * the response's partial success.
 *
 * Bounds (issue 28): at most METRON_OTLP_MAX_SPANS spans per request and METRON_OTLP_MAX_GROUP_SPANS per trace
 * (the rest refused, named in the answer), and the work of a request yields to the event loop every few hundred
 * spans, so one export never holds the server.
 */
import { positiveNumber } from "@/lib/config/env";
import { scrubSecrets } from "@/lib/config/secrets";
import type { Sql } from "@/lib/db/sql";
import { deleteTraces } from "@/lib/ingest/curate";
import { ingestAdapted } from "@/lib/ingest/ingest-auto";
import { labelQuestions } from "@/lib/trace/adapters";
import {
  assembleTrace,
  flattenSpans,
  groupKeyOf,
  hasSteps,
  inWorkflowSession,
  workflowRoot,
  type FlatSpan,
} from "@/lib/trace/adapters/otlp";

export const otlpQuietMs = () => positiveNumber("METRON_OTLP_QUIET_MS", 10_000);
export const otlpKeepMs = () => positiveNumber("METRON_OTLP_KEEP_MS", 60 * 60 * 1000);
export const otlpMaxSpans = () => positiveNumber("METRON_OTLP_MAX_SPANS", 20_000);
export const otlpMaxGroupSpans = () => positiveNumber("METRON_OTLP_MAX_GROUP_SPANS", 20_000);

/** More spans in one request than METRON_OTLP_MAX_SPANS: nothing of it is stored (answered 413). */
export class TooManySpansError extends Error {}

const YIELD_EVERY = 250;
const turn = () => new Promise((r) => setImmediate(r));

export interface ReceiveReport {
  accepted: number;
  duplicates: number;
  /** Spans refused: their trace was stored longer ago than METRON_OTLP_KEEP_MS, or it is over its span limit. */
  rejected: number;
  /** Why spans were refused, for the exporter's partial success. */
  reasons: string[];
  /** Groups stored before that received a late span: assembled again, replacing the stored trace. */
  reopened: string[];
  /** Groups whose root span arrived: ready to assemble. */
  complete: string[];
}

/** A span as stored: scrubbed of every secret (an exporter that sends a provider's key in an error). */
const toJson = (s: FlatSpan) =>
  scrubSecrets(JSON.stringify(s, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)));

function fromJson(body: string): FlatSpan {
  const s = JSON.parse(body) as FlatSpan & { startNs: string; endNs: string };
  return {
    ...s,
    startNs: BigInt(s.startNs),
    endNs: BigInt(s.endNs),
    events: s.events.map((e) => ({ ...e, timeNs: BigInt(e.timeNs as unknown as string) })),
  };
}

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
  const rows = await sql.all<{ body: string; key: string }>(
    // Only spans kept for re-assembly (received within METRON_OTLP_KEEP_MS) can join: not the whole store's.
    `SELECT body, group_key AS key FROM otlp_spans
      WHERE group_key != ? AND received_at >= ? AND body != '' AND body LIKE ?`,
    [group, now - otlpKeepMs(), `%"traceloop.workflow.name"%`],
  );
  const adopted = rows.map((r) => ({ key: r.key, s: fromJson(r.body) })).filter(({ s }) => inWorkflowSession(root, s));
  if (adopted.length === 0) return { spans: [], groups: [] };
  // The groups they leave are assembled again without them (a trace stored from one before is replaced or goes).
  const groups = [...new Set(adopted.map((a) => a.key))];
  await sql.transaction(async (tx) => {
    for (const { s } of adopted)
      await tx.run("UPDATE otlp_spans SET group_key = ? WHERE trace_id = ? AND span_id = ?", [
        group,
        s.traceId,
        s.spanId,
      ]);
    for (const key of groups)
      await tx.run("UPDATE otlp_groups SET assembled_at = NULL WHERE group_key = ? AND assembled_at IS NOT NULL", [
        key,
      ]);
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
    await sql.all<{ body: string; key: string }>(
      `SELECT body, group_key AS key FROM otlp_spans
        WHERE group_key != ? AND received_at >= ? AND body LIKE '%"parentSpanId":null%'
          AND body LIKE '%"traceloop.workflow.name"%'`,
      [group, now - otlpKeepMs()],
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
    for (const { span, key } of moved)
      await tx.run("UPDATE otlp_spans SET group_key = ? WHERE trace_id = ? AND span_id = ?", [
        key,
        span.traceId,
        span.spanId,
      ]);
    // The workflow's group is assembled (again) with them.
    for (const key of groups) await tx.run("UPDATE otlp_groups SET assembled_at = NULL WHERE group_key = ?", [key]);
  });
  return { spans: moved.map((m) => m.span), groups };
}

export async function receiveSpans(sql: Sql, doc: unknown, now = Date.now()): Promise<ReceiveReport> {
  const spans = flattenSpans(doc);
  const report: ReceiveReport = { accepted: 0, duplicates: 0, rejected: 0, reasons: [], complete: [], reopened: [] };
  if (spans.length === 0) return report;
  const maxSpans = otlpMaxSpans();
  if (spans.length > maxSpans)
    throw new TooManySpansError(
      `the export holds ${spans.length} spans, over the ${maxSpans} one request may carry (METRON_OTLP_MAX_SPANS): lower the exporter's batch size`,
    );
  const keepMs = otlpKeepMs();
  const maxGroup = otlpMaxGroupSpans();
  const refuse = (reason: string) => {
    report.rejected++;
    if (!report.reasons.includes(reason)) report.reasons.push(reason);
  };
  await sql.transaction(async (tx) => {
    const complete = new Set<string>();
    const reopened = new Set<string>();
    const sizes = new Map<string, number>();
    for (const [i, s] of spans.entries()) {
      if (i > 0 && i % YIELD_EVERY === 0) await turn();
      if (await tx.get("SELECT 1 AS one FROM otlp_spans WHERE trace_id = ? AND span_id = ?", [s.traceId, s.spanId])) {
        report.duplicates++;
        continue;
      }
      const key = groupKeyOf(s);
      const g = await tx.get<{ assembledAt: number | null }>(
        "SELECT assembled_at AS assembledAt FROM otlp_groups WHERE group_key = ?",
        [key],
      );
      const final =
        g?.assembledAt &&
        (now - g.assembledAt > keepMs ||
          (await tx.get("SELECT 1 AS one FROM otlp_spans WHERE group_key = ? AND body = '' LIMIT 1", [key])));
      if (final) {
        refuse(`spans arrived more than ${keepMs} ms after their trace was stored (METRON_OTLP_KEEP_MS)`);
        continue;
      }
      let size = sizes.get(key);
      if (size === undefined)
        size = (await tx.get<{ n: number }>("SELECT count(*) AS n FROM otlp_spans WHERE group_key = ?", [key]))?.n ?? 0;
      if (size >= maxGroup) {
        refuse(`a trace reached ${maxGroup} spans (METRON_OTLP_MAX_GROUP_SPANS): the rest of it was not stored`);
        continue;
      }
      sizes.set(key, size + 1);
      if (g?.assembledAt) {
        // A late span: the group opens again and is assembled anew, replacing the trace stored from it.
        await tx.run("UPDATE otlp_groups SET assembled_at = NULL WHERE group_key = ?", [key]);
        reopened.add(key);
      }
      await tx.run("INSERT INTO otlp_spans (trace_id, span_id, group_key, body, received_at) VALUES (?, ?, ?, ?, ?)", [
        s.traceId,
        s.spanId,
        key,
        toJson(s),
        now,
      ]);
      const root = !s.parentSpanId;
      await tx.run(
        `INSERT INTO otlp_groups (group_key, last_span_at, root_seen) VALUES (?, ?, ?)
       ON CONFLICT(group_key) DO UPDATE SET last_span_at = excluded.last_span_at,
       root_seen = CASE WHEN otlp_groups.root_seen > excluded.root_seen THEN otlp_groups.root_seen ELSE excluded.root_seen END`,
        [key, now, root ? 1 : 0],
      );
      report.accepted++;
      // A conversation spans several OTel traces: only its quiet period closes it.
      if (root && key.startsWith("trace:")) complete.add(key);
    }
    // A reopened trace-keyed group whose root came earlier is complete again at once.
    for (const key of reopened) {
      if (!key.startsWith("trace:") || complete.has(key)) continue;
      const g = await tx.get<{ root: number }>("SELECT root_seen AS root FROM otlp_groups WHERE group_key = ?", [key]);
      if (g?.root) complete.add(key);
    }
    report.complete = [...complete];
    report.reopened = [...reopened];
  });
  return report;
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
        await sql.all<{ g: string }>(
          `SELECT group_key AS g FROM otlp_groups WHERE assembled_at IS NULL
               AND ((root_seen = 1 AND group_key LIKE 'trace:%') OR last_span_at <= ?)`,
          [now - otlpQuietMs()],
        )
      ).map((r) => r.g);
  const due: string[] = [];
  for (const g of candidates) {
    const row = await sql.get<{ a: number | null }>("SELECT assembled_at AS a FROM otlp_groups WHERE group_key = ?", [
      g,
    ]);
    if (row && row.a === null) due.push(g);
  }
  const outcomes: AssembleOutcome[] = [];
  for (const group of due) {
    // Claim the group first, so a second assembler (another request, the timer) does not store it twice.
    const claimed = await sql.transaction(
      async (tx) =>
        (
          await tx.run("UPDATE otlp_groups SET assembled_at = ? WHERE group_key = ? AND assembled_at IS NULL", [
            now,
            group,
          ])
        ).changes === 1,
    );
    if (!claimed) continue;
    const spans = (
      await sql.all<{ body: string }>("SELECT body FROM otlp_spans WHERE group_key = ? AND body != ''", [group])
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
    const previous = await sql.get<{ outcome: string | null }>("SELECT outcome FROM otlp_groups WHERE group_key = ?", [
      group,
    ]);
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
          traces = await own.all<StoredTrace>("SELECT id, run_id AS run FROM traces WHERE upload_id = ?", [
            report.upload_id,
          ]);
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
      await tx.run("UPDATE otlp_groups SET outcome = ? WHERE group_key = ?", [
        JSON.stringify({
          inserted: outcome.inserted,
          duplicates: outcome.duplicates,
          errors: outcome.errors,
          traces,
          ...(outcome.skipped ? { skipped: outcome.skipped } : {}),
        }),
        group,
      ]);
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
        await tx.run(
          `UPDATE otlp_spans SET body = '' WHERE body != '' AND group_key IN
             (SELECT group_key FROM otlp_groups WHERE assembled_at IS NOT NULL AND assembled_at < ? AND assembled_at >= ?)`,
          [until, since],
        )
      ).changes,
  );
}

let timer: NodeJS.Timeout | null = null;

/** The server's assembler: closes quiet groups every few seconds. */
export function startAssembler(sqlite: () => Sql | Promise<Sql>, openStore: () => Sql | Promise<Sql>) {
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
        await assembleGroups(store, openStore);
        await forgetAssembledSpans(store, Date.now(), window);
        window = 24 * 3600 * 1000;
      })
      .catch(() => undefined)
      .finally(() => (running = false));
  }, every);
  timer.unref();
}
