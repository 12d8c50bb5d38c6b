import path from "node:path";
import { defineConfig } from "vitest/config";

// The harness conformance suite (npm run test:harnesses): real agent harnesses and SDKs, installed into
// harnesses/node_modules from harnesses/package-lock.json, run offline against a scripted fake model.
export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname, "..") } },
  test: {
    root: path.resolve(import.meta.dirname, ".."),
    include: ["harnesses/**/*.test.ts"],
    exclude: ["harnesses/node_modules/**", "harnesses/node22/**"],
    environment: "node",
    pool: "forks",
    testTimeout: 120_000,
    env: { METRON_SIM_STEP_DELAY_MS: "0" },
  },
});
