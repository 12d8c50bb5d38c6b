import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["lib/**/*.test.ts", "components/**/*.test.ts", "scripts/**/*.test.ts", "app/**/*.test.ts"],
    environment: "node",
    globalSetup: ["lib/testing/global-setup.ts"],
    pool: "forks",
    testTimeout: 60_000,
    // Jobs in tests: no simulated thinking time, quick polling and back-off.
    env: { METRON_SIM_STEP_DELAY_MS: "0", METRON_JOB_POLL_MS: "50", METRON_JOB_BACKOFF_MS: "20" },
  },
});
