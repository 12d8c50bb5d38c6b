/**
 * The OTLP/HTTP trace receiver behind `POST /v1/traces`. Spans are stored as they arrive (a span sent again is not
 * stored twice), grouped into agent traces (lib/trace/adapters/otlp.ts), and a group is assembled into one Metron
 * trace and ingested through the normal path when its root span has arrived (a group keyed by its OTel trace), or
 * when no span has arrived for METRON_OTLP_QUIET_MS (a conversation spanning several OTel traces, or a trace whose
 * root never comes). A span for a group already stored is refused and counted in the response's partial success.
 */
import type Database from "better-sqlite3";
import { positiveNumber } from "@/lib/config/env";
import { withWriteTransaction } from "@/lib/db/write-lock";
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

export async function receiveSpans(sqlite: Database.Database, doc: unknown, now = Date.now()): Promise<ReceiveReport> {
  const spans = flattenSpans(doc);
  const report: ReceiveReport = { accepted: 0, duplicates: 0, rejected: 0, complete: [] };
  if (spans.length === 0) return report;
  await withWriteTransaction(sqlite, () => {
    const seen = sqlite.prepare("SELECT 1 FROM otlp_spans WHERE trace_id = ? AND span_id = ?");
    const group = sqlite.prepare("SELECT assembled_at AS assembledAt FROM otlp_groups WHERE group_key = ?");
    const insert = sqlite.prepare(
      "INSERT INTO otlp_spans (trace_id, span_id, group_key, body, received_at) VALUES (?, ?, ?, ?, ?)",
    );
    const touch = sqlite.prepare(
      `INSERT INTO otlp_groups (group_key, last_span_at, root_seen) VALUES (?, ?, ?)
       ON CONFLICT(group_key) DO UPDATE SET last_span_at = excluded.last_span_at, root_seen = max(root_seen, excluded.root_seen)`,
    );
    const complete = new Set<string>();
    for (const s of spans) {
      if (seen.get(s.traceId, s.spanId)) {
        report.duplicates++;
        continue;
      }
      const key = groupKeyOf(s);
      const g = group.get(key) as { assembledAt: number | null } | undefined;
      if (g?.assembledAt) {
        report.rejected++;
        continue;
      }
      insert.run(s.traceId, s.spanId, key, toJson(s), now);
      const root = !s.parentSpanId;
      touch.run(key, now, root ? 1 : 0);
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
  sqlite: Database.Database,
  openStore: () => Database.Database,
  options: { groups?: string[]; now?: number } = {},
): Promise<AssembleOutcome[]> {
  const now = options.now ?? Date.now();
  const due = (
    options.groups?.length
      ? options.groups
      : (
          sqlite
            .prepare(
              `SELECT group_key AS g FROM otlp_groups WHERE assembled_at IS NULL
               AND ((root_seen = 1 AND group_key LIKE 'trace:%') OR last_span_at <= ?)`,
            )
            .all(now - otlpQuietMs()) as { g: string }[]
        ).map((r) => r.g)
  ).filter((g) => {
    const row = sqlite.prepare("SELECT assembled_at AS a FROM otlp_groups WHERE group_key = ?").get(g) as
      { a: number | null } | undefined;
    return row && row.a === null;
  });
  const outcomes: AssembleOutcome[] = [];
  for (const group of due) {
    // Claim the group first, so a second assembler (another request, the timer) does not store it twice.
    let claimed = false;
    await withWriteTransaction(sqlite, () => {
      claimed =
        sqlite
          .prepare("UPDATE otlp_groups SET assembled_at = ? WHERE group_key = ? AND assembled_at IS NULL")
          .run(now, group).changes === 1;
    });
    if (!claimed) continue;
    const spans = (
      sqlite.prepare("SELECT body FROM otlp_spans WHERE group_key = ? AND body != ''").all(group) as { body: string }[]
    ).map((r) => fromJson(r.body));
    const outcome: AssembleOutcome = { group, inserted: 0, duplicates: 0, errors: [] };
    if (spans.length) {
      const trace = assembleTrace(spans);
      const store = openStore();
      try {
        const report = await ingestAdapted(store, [trace], { source: "otlp", dataset: trace.run?.benchmark });
        outcome.inserted = report.inserted;
        outcome.duplicates = report.duplicates;
        outcome.errors = report.errors.map((e) => e.message);
      } catch (e) {
        outcome.errors.push((e as Error).message);
      } finally {
        store.close();
      }
    }
    await withWriteTransaction(sqlite, () => {
      sqlite
        .prepare("UPDATE otlp_groups SET outcome = ? WHERE group_key = ?")
        .run(
          JSON.stringify({ inserted: outcome.inserted, duplicates: outcome.duplicates, errors: outcome.errors }),
          group,
        );
      // The span ids stay (a span sent again is recognised); their bodies are in the trace now.
      sqlite.prepare("UPDATE otlp_spans SET body = '' WHERE group_key = ?").run(group);
    });
    outcomes.push(outcome);
  }
  return outcomes;
}

let timer: NodeJS.Timeout | null = null;

/** The server's assembler: closes quiet groups every few seconds. */
export function startAssembler(sqlite: () => Database.Database, openStore: () => Database.Database) {
  if (timer) return;
  const every = Math.min(5000, Math.max(500, Math.floor(otlpQuietMs() / 2)));
  let running = false;
  timer = setInterval(() => {
    if (running) return;
    running = true;
    void assembleGroups(sqlite(), openStore)
      .catch(() => undefined)
      .finally(() => (running = false));
  }, every);
  timer.unref();
}
