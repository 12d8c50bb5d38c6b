import type { NextConfig } from "next";
import { randomBytes } from "node:crypto";
import { codeStamp } from "./scripts/code-stamp.mjs";

// No 'unsafe-eval' (React needs it only in development); inline scripts and styles are Next's own bootstrapping.
const csp = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${process.env.NODE_ENV === "development" ? " 'unsafe-eval'" : ""}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const nextConfig: NextConfig = {
  // Required from node_modules, once per process: bundled, a package is copied into the chunks of every route that
  // imports it, and Next loads every route at its start (node-sql-parser's 2.5 MB was in a dozen chunks, the price
  // catalogue's 0.5 MB and the AI SDK's in five or six: tens of MB of the server's memory; e2e/server-bundle.spec.ts).
  serverExternalPackages: [
    "better-sqlite3",
    "node-sql-parser",
    "@pydantic/genai-prices",
    "ai",
    "@ai-sdk/anthropic",
    "@ai-sdk/openai",
    "@ai-sdk/openai-compatible",
  ],
  poweredByHeader: false,
  // The stamp of lib/'s sources, then a part of this build's own: the derived data kept in the store is keyed by the
  // stamp (instrumentation.ts), so values the CLI built from the same sources computed are read, and a rebuild of
  // the pages alone does not compute them anew. The id itself stays new at every build.
  generateBuildId: () => `${codeStamp(process.cwd())}-${randomBytes(6).toString("hex")}`,
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "Content-Security-Policy", value: csp },
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "same-origin" },
          { key: "X-Frame-Options", value: "DENY" },
        ],
      },
    ];
  },
};

export default nextConfig;
