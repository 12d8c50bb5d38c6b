import { defineConfig } from "@playwright/test";
import { SECURE_PORT } from "./e2e/secure.mjs";
import { CHROMIUM, CHROMIUM_ARGS } from "./scripts/shell.mjs";

const PORT = Number(process.env.E2E_PORT ?? 3100);
export const E2E_SECRET = "sk-e2e-NOT-A-REAL-KEY-7731";

export default defineConfig({
  testDir: "./e2e",
  outputDir: "./test-results",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    viewport: { width: 1440, height: 900 },
    launchOptions: {
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
    },
  },
  webServer: [
    {
      // A fresh store, seeded through the real ingest, then the production build.
      command: `node e2e/server.mjs ${PORT}`,
      // A key the server holds: tests check that it never reaches a page, the bundle or the store.
      env: { OPENAI_API_KEY: E2E_SECRET, METRON_UPLOAD_IDLE_MS: "3000" },
      url: `http://127.0.0.1:${PORT}/api/schema/trace`,
      timeout: 120_000,
      reuseExistingServer: false,
      stdout: "pipe",
    },
    {
      // The same build on its own store, with access tokens (e2e/security.spec.ts).
      command: `node e2e/server.mjs ${SECURE_PORT} --secure`,
      url: `http://127.0.0.1:${SECURE_PORT}/api/schema/trace`, // answers 401 once up: ready
      timeout: 120_000,
      reuseExistingServer: false,
      stdout: "pipe",
    },
  ],
});
