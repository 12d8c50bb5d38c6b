import type { Metadata } from "next";
import { ApiReference } from "@/components/api/api-reference";

export const metadata: Metadata = { title: "API — Metron" };

/** The versioned API's reference, rendered from /api/v1/openapi.json (docs/api.md). */
export default function ApiDocsPage() {
  return (
    <div className="space-y-3">
      <h1 className="text-xl font-semibold">API</h1>
      <p className="text-sm text-zinc-600">
        Read what the pages show and write scores, labels and uploads from a script or a notebook. The document is at{" "}
        <a className="text-blue-700 hover:underline" href="/api/v1/openapi.json">
          /api/v1/openapi.json
        </a>
        ; with access tokens configured, send <code>Authorization: Bearer &lt;token&gt;</code> (docs/api.md,
        docs/notebooks.md).
      </p>
      <ApiReference url="/api/v1/openapi.json" />
    </div>
  );
}
