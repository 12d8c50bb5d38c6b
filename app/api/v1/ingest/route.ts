/**
 * `POST /api/v1/ingest`: a trace file as the body, the same upload as the browser's and the same report as the CLI
 * (app/api/ingest/route.ts). Outside the proxy, as every large-body route: it checks access itself.
 */
export { POST } from "../../ingest/route";
