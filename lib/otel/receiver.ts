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
import type { Sql } from "@/lib/db/sql";
import { count, countN, one, qb, write } from "@/lib/db/typed";
import { flattenSpans, groupKeyOf } from "@/lib/trace/adapters/otlp";
import { otlpKeepMs, otlpMaxGroupSpans, otlpMaxSpans, toJson } from "./stored-spans";

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
  /** Groups whose root span arrived: ready to assemble (lib/otel/assemble.ts). */
  complete: string[];
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
    const q = qb(tx);
    const complete = new Set<string>();
    const reopened = new Set<string>();
    const sizes = new Map<string, number>();
    for (const [i, s] of spans.entries()) {
      if (i > 0 && i % YIELD_EVERY === 0) await turn();
      if (
        await one(
          tx,
          q
            .selectFrom("otlp_spans")
            .select("span_id")
            .where("trace_id", "=", s.traceId)
            .where("span_id", "=", s.spanId),
        )
      ) {
        report.duplicates++;
        continue;
      }
      const key = groupKeyOf(s);
      const g = await one(
        tx,
        q.selectFrom("otlp_groups").select("assembled_at as assembledAt").where("group_key", "=", key),
      );
      const final =
        g?.assembledAt &&
        (now - g.assembledAt > keepMs ||
          (await one(
            tx,
            q.selectFrom("otlp_spans").select("span_id").where("group_key", "=", key).where("body", "=", "").limit(1),
          )));
      if (final) {
        refuse(`spans arrived more than ${keepMs} ms after their trace was stored (METRON_OTLP_KEEP_MS)`);
        continue;
      }
      let size = sizes.get(key);
      if (size === undefined)
        size = await count(tx, q.selectFrom("otlp_spans").select(countN).where("group_key", "=", key));
      if (size >= maxGroup) {
        refuse(`a trace reached ${maxGroup} spans (METRON_OTLP_MAX_GROUP_SPANS): the rest of it was not stored`);
        continue;
      }
      sizes.set(key, size + 1);
      if (g?.assembledAt) {
        // A late span: the group opens again and is assembled anew, replacing the trace stored from it.
        await write(tx, q.updateTable("otlp_groups").set({ assembled_at: null }).where("group_key", "=", key));
        reopened.add(key);
      }
      await write(
        tx,
        q
          .insertInto("otlp_spans")
          .values({ trace_id: s.traceId, span_id: s.spanId, group_key: key, body: toJson(s), received_at: now }),
      );
      const root = !s.parentSpanId;
      await write(
        tx,
        q
          .insertInto("otlp_groups")
          .values({ group_key: key, last_span_at: now, root_seen: root ? 1 : 0 })
          .onConflict((oc) =>
            oc.column("group_key").doUpdateSet((eb) => ({
              last_span_at: eb.ref("excluded.last_span_at"),
              root_seen: eb
                .case()
                .when("otlp_groups.root_seen", ">", eb.ref("excluded.root_seen"))
                .then(eb.ref("otlp_groups.root_seen"))
                .else(eb.ref("excluded.root_seen"))
                .end(),
            })),
          ),
      );
      report.accepted++;
      // A conversation spans several OTel traces: only its quiet period closes it.
      if (root && key.startsWith("trace:")) complete.add(key);
    }
    // A reopened trace-keyed group whose root came earlier is complete again at once.
    for (const key of reopened) {
      if (!key.startsWith("trace:") || complete.has(key)) continue;
      const g = await one(tx, q.selectFrom("otlp_groups").select("root_seen as root").where("group_key", "=", key));
      if (g?.root) complete.add(key);
    }
    report.complete = [...complete];
    report.reopened = [...reopened];
  });
  return report;
}
