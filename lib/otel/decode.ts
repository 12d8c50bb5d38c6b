/**
 * OTLP/HTTP trace export bodies — protobuf (`application/x-protobuf`) or JSON (`application/json`), either of them
 * gzip-compressed — as one JSON shape: OTLP/JSON's (camelCase fields, ids as hex strings, times as decimal strings of
 * nanoseconds), which is also what an exporter's file output and the anchors' exports hold.
 */
import { gunzipSync } from "node:zlib";
import protobuf from "protobufjs";
import { OTLP_TRACE_PROTO_FILES } from "./otlp-proto";

let requestType: protobuf.Type | null = null;

function exportRequestType(): protobuf.Type {
  if (requestType) return requestType;
  const root = new protobuf.Root();
  for (const text of Object.values(OTLP_TRACE_PROTO_FILES)) protobuf.parse(text, root, { keepCase: false });
  root.resolveAll();
  requestType = root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");
  return requestType;
}

export type OtlpJson = { resourceSpans?: unknown[] };

const hex = (b: unknown) => (b instanceof Uint8Array ? Buffer.from(b).toString("hex") : b);

/** Ids as hex, as OTLP/JSON writes them (protobufjs gives bytes). */
function idsToHex(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(idsToHex);
  if (v && typeof v === "object" && !(v instanceof Uint8Array)) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v))
      o[k] = k === "traceId" || k === "spanId" || k === "parentSpanId" ? hex(x) : idsToHex(x);
    return o;
  }
  return v;
}

export class OtlpDecodeError extends Error {}

/** A decoded export over its limit (a gzip bomb, or a batch to make smaller): answered 413. */
export class OtlpTooLargeError extends OtlpDecodeError {}

/**
 * Decodes an export. A gzip body is inflated up to `maxBytes` (METRON_OTLP_MAX_BYTES) and no further: what the
 * exporter sends is bounded after decoding too, not only on the wire.
 */
export function decodeExportRequest(
  body: Buffer,
  contentType: string,
  contentEncoding?: string | null,
  maxBytes = 16 * 1024 * 1024,
): OtlpJson {
  let bytes = body;
  if (contentEncoding && /gzip/i.test(contentEncoding)) {
    try {
      bytes = gunzipSync(body, { maxOutputLength: maxBytes });
    } catch (e) {
      if ((e as { code?: string }).code === "ERR_BUFFER_TOO_LARGE")
        throw new OtlpTooLargeError(
          `the export inflates to over ${maxBytes} bytes (METRON_OTLP_MAX_BYTES): lower the exporter's batch size`,
        );
      throw new OtlpDecodeError(`the body is not gzip: ${(e as Error).message}`);
    }
  }
  if (/json/i.test(contentType)) {
    try {
      return JSON.parse(bytes.toString("utf8")) as OtlpJson;
    } catch (e) {
      throw new OtlpDecodeError(`the body is not JSON: ${(e as Error).message}`);
    }
  }
  if (/protobuf/i.test(contentType)) {
    const type = exportRequestType();
    try {
      const message = type.decode(bytes);
      return idsToHex(
        type.toObject(message, { longs: String, enums: Number, defaults: false, arrays: true }),
      ) as OtlpJson;
    } catch (e) {
      throw new OtlpDecodeError(`the body is not an OTLP ExportTraceServiceRequest: ${(e as Error).message}`);
    }
  }
  throw new OtlpDecodeError(
    `unsupported Content-Type "${contentType}": send application/x-protobuf or application/json`,
  );
}

/** An ExportTraceServiceResponse in protobuf: empty, or with the partial success (spans refused and why). */
export function encodeExportResponse(partial?: { rejectedSpans: number; errorMessage: string }): Uint8Array {
  exportRequestType();
  const type = requestType!.root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse");
  return type
    .encode(
      type.fromObject(
        partial ? { partialSuccess: { rejectedSpans: partial.rejectedSpans, errorMessage: partial.errorMessage } } : {},
      ),
    )
    .finish();
}

/**
 * Why a decoded JSON body is not an OTLP export, or null when it is one. A body without `resourceSpans` stored
 * nothing and used to get 200 (issue 29); the OpenAI Agents SDK's own tracing exporter, pointed here, sends
 * `{data: [...]}`, which is not OpenTelemetry.
 */
export function notAnExport(doc: unknown): string | null {
  if (doc && typeof doc === "object" && Array.isArray((doc as { resourceSpans?: unknown }).resourceSpans)) return null;
  if (doc && typeof doc === "object" && Array.isArray((doc as { data?: unknown }).data))
    return "this is the OpenAI Agents SDK's own tracing payload ({data: [...]}), not an OTLP export: trace the SDK with OpenInference's OpenAI instrumentation and an OTLP exporter pointed here (docs/formats.md)";
  return "the body is not an OTLP ExportTraceServiceRequest: it has no resourceSpans";
}
