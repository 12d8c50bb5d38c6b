/**
 * The OTLP/HTTP trace receiver behind `POST /v1/traces`. Spans are stored as they arrive (a span sent again is not
 * stored twice), grouped into agent traces (lib/trace/adapters/otlp.ts), and a group is assembled into one Metron
 * trace and ingested through the normal path when its root span has arrived (a group keyed by its OTel trace), or
 * when no span has arrived for METRON_OTLP_QUIET_MS (a conversation spanning several OTel traces, or a trace whose
 * root never comes). A span for a group already stored is refused and counted in the response's partial success.
 */
import type Database from "better-sqlite3";
import { positiveNumber } from "@/lib/config/env";
import { asSql, type Sql } from "@/lib/db/sql";
import { ingestAdapted } from "@/lib/ingest/ingest-auto";
import { assembleTrace, flattenSpans, groupKeyOf, type FlatSpan } from "@/lib/trace/adapters/otlp";

export const otlpQuietMs = () => positiveNumber("METRON_OTLP_QUIET_MS", 10_000);

export interface ReceiveReport {
  accepted: number;
  duplicates: number;
  /** Spans of a trace already stored (they arrived after it was assembled). */
  rejected: number;
  /** Groups whose root span arrived: ready to assemble. */
  complete: string[];
}

const toJson = (s: FlatSpan) => JSON.stringify(s, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v));

function fromJson(body: string): FlatSpan {
  const s = JSON.parse(body) as FlatSpan & { startNs: string; endNs: string };
  return {
    ...s,
    startNs: BigInt(s.startNs),
    endNs: BigInt(s.endNs),
    events: s.events.map((e) => ({ ...e, timeNs: BigInt(e.timeNs as unknown as string) })),
  };
}

type Store = Database.Database | Sql;

export async function receiveSpans(store: Store, doc: unknown, now = Date.now()): Promise<ReceiveReport> {
  const spans = flattenSpans(doc);
  const report: ReceiveReport = { accepted: 0, duplicates: 0, rejected: 0, complete: [] };
  if (spans.length === 0) return report;
  await asSql(store).transaction(async (tx) => {
    const complete = new Set<string>();
    for (const s of spans) {
      if (await tx.get("SELECT 1 AS one FROM otlp_spans WHERE trace_id = ? AND span_id = ?", [s.traceId, s.spanId])) {
        report.duplicates++;
        continue;
      }
      const key = groupKeyOf(s);
      const g = await tx.get<{ assembledAt: number | null }>(
        "SELECT assembled_at AS assembledAt FROM otlp_groups WHERE group_key = ?",
        [key],
      );
      if (g?.assembledAt) {
        report.rejected++;
        continue;
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
    report.complete = [...complete];
  });
  return report;
}

export interface AssembleOutcome {
  group: string;
  inserted: number;
  duplicates: number;
  errors: string[];
}

/** Assembles and ingests the given groups (or every group due: root seen, or quiet for METRON_OTLP_QUIET_MS). */
export async function assembleGroups(
  store: Store,
  openStore: () => Store | Promise<Sql>,
  options: { groups?: string[]; now?: number } = {},
): Promise<AssembleOutcome[]> {
  const sql = asSql(store);
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
    const outcome: AssembleOutcome = { group, inserted: 0, duplicates: 0, errors: [] };
    if (spans.length) {
      const trace = assembleTrace(spans);
      const own = asSql(await openStore());
      try {
        const report = await ingestAdapted(own, [trace], { source: "otlp", dataset: trace.run?.benchmark });
        outcome.inserted = report.inserted;
        outcome.duplicates = report.duplicates;
        outcome.errors = report.errors.map((e) => e.message);
      } catch (e) {
        outcome.errors.push((e as Error).message);
      } finally {
        await own.close();
      }
    }
    await sql.transaction(async (tx) => {
      await tx.run("UPDATE otlp_groups SET outcome = ? WHERE group_key = ?", [
        JSON.stringify({ inserted: outcome.inserted, duplicates: outcome.duplicates, errors: outcome.errors }),
        group,
      ]);
      // The span ids stay (a span sent again is recognised); their bodies are in the trace now.
      await tx.run("UPDATE otlp_spans SET body = '' WHERE group_key = ?", [group]);
    });
    outcomes.push(outcome);
  }
  return outcomes;
}

let timer: NodeJS.Timeout | null = null;

/** The server's assembler: closes quiet groups every few seconds. */
export function startAssembler(sqlite: () => Store | Promise<Sql>, openStore: () => Store | Promise<Sql>) {
  if (timer) return;
  const every = Math.min(5000, Math.max(500, Math.floor(otlpQuietMs() / 2)));
  let running = false;
  timer = setInterval(() => {
    if (running) return;
    running = true;
    void Promise.resolve(sqlite())
      .then((store) => assembleGroups(store, openStore))
      .catch(() => undefined)
      .finally(() => (running = false));
  }, every);
  timer.unref();
}
