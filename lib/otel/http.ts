/**
 * The OTLP/HTTP trace receiver behind Metron's endpoints (`/v1/traces`, and `/api/public/otel/v1/traces`, where
 * Langfuse's span processor posts): protobuf or JSON, optionally gzip. Answers an ExportTraceServiceResponse (in the
 * request's encoding): empty when every span was taken, `partialSuccess` naming the spans refused. Access is the
 * route's to check first (these routes are outside the proxy).
 */
import { getSql, storeOpener } from "@/lib/db/store";
import { positiveNumber } from "@/lib/config/env";
import {
  decodeExportRequest,
  encodeExportResponse,
  notAnExport,
  OtlpDecodeError,
  OtlpTooLargeError,
} from "@/lib/otel/decode";
import { assembleGroups, startAssembler, type AfterAssembled } from "@/lib/otel/assemble";
import { receiveSpans, TooManySpansError } from "@/lib/otel/receiver";
import { readBounded } from "@/lib/http/read-bounded";

export async function receiveOtlpRequest(request: Request, after?: AfterAssembled): Promise<Response> {
  const max = positiveNumber("METRON_OTLP_MAX_BYTES", 16 * 1024 * 1024);
  const contentType = request.headers.get("content-type") ?? "";
  const protobuf = /protobuf/i.test(contentType);
  const body = await readBounded(request.body, max);
  if (body === null)
    return Response.json(
      { error: `the export is over ${max} bytes (METRON_OTLP_MAX_BYTES): lower the exporter's batch size` },
      { status: 413 },
    );
  let doc;
  try {
    doc = decodeExportRequest(body, contentType, request.headers.get("content-encoding"), max);
  } catch (e) {
    if (e instanceof OtlpTooLargeError) return Response.json({ error: e.message }, { status: 413 });
    if (e instanceof OtlpDecodeError)
      return Response.json({ error: e.message }, { status: /Content-Type/.test(e.message) ? 415 : 400 });
    throw e;
  }
  const notOtlp = notAnExport(doc);
  if (notOtlp) return Response.json({ error: notOtlp }, { status: 400 });
  const sql = await getSql();
  startAssembler(getSql, storeOpener(), after);
  let report;
  try {
    report = await receiveSpans(sql, doc);
  } catch (e) {
    if (e instanceof TooManySpansError) return Response.json({ error: e.message }, { status: 413 });
    throw e;
  }
  if (report.complete.length) after?.(await assembleGroups(sql, storeOpener(), { groups: report.complete }));
  const refused = report.rejected
    ? { rejectedSpans: report.rejected, errorMessage: `${report.rejected} spans refused: ${report.reasons.join("; ")}` }
    : undefined;
  if (protobuf)
    return new Response(new Uint8Array(encodeExportResponse(refused)), {
      headers: { "Content-Type": "application/x-protobuf" },
    });
  return Response.json(refused ? { partialSuccess: { ...refused, rejectedSpans: String(refused.rejectedSpans) } } : {});
}
