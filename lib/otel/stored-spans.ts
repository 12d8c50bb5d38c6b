/**
 * Received OTLP spans as the store keeps them (tables `otlp_spans`, `otlp_groups`): their JSON form, scrubbed of
 * secrets, and the receiver's limits (docs/configuration.md).
 */
import { positiveNumber } from "@/lib/config/env";
import { scrubSecrets } from "@/lib/config/secrets";
import type { FlatSpan } from "@/lib/trace/adapters/otlp";

export const otlpQuietMs = () => positiveNumber("METRON_OTLP_QUIET_MS", 10_000);
export const otlpKeepMs = () => positiveNumber("METRON_OTLP_KEEP_MS", 60 * 60 * 1000);
export const otlpMaxSpans = () => positiveNumber("METRON_OTLP_MAX_SPANS", 20_000);
export const otlpMaxGroupSpans = () => positiveNumber("METRON_OTLP_MAX_GROUP_SPANS", 20_000);

/** A span as stored: scrubbed of every secret (an exporter that sends a provider's key in an error). */
export const toJson = (s: FlatSpan) =>
  scrubSecrets(JSON.stringify(s, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)));

export function fromJson(body: string): FlatSpan {
  const s = JSON.parse(body) as FlatSpan & { startNs: string; endNs: string };
  return {
    ...s,
    startNs: BigInt(s.startNs),
    endNs: BigInt(s.endNs),
    events: s.events.map((e) => ({ ...e, timeNs: BigInt(e.timeNs as unknown as string) })),
  };
}
