import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import { layerConfig } from "./eslint.layers.mjs";

// The pure layers may not use a framework (the room-to-room arrows are in eslint.layers.mjs).
const restrict = (patterns) => ["error", { patterns: patterns.map((p) => ({ ...p, allowTypeImports: true })) }];
const noFramework = {
  group: ["next", "next/*", "react", "react/*", "react-dom", "react-dom/*"],
  message: "this layer is pure: no Next or React",
};

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: [
      ".next/**",
      "node_modules/**",
      "data/**",
      "test-results/**",
      "playwright-report/**",
      // The harness suite needs its own packages (harnesses/node_modules): checked by npm run test:harnesses.
      "harnesses/**",
      "next-env.d.ts",
      "drizzle/**",
      "dist/**",
    ],
  },
  layerConfig,
  {
    // The pure layers: the trace format, SQL analysis, metrics.
    files: ["lib/trace/**/*.ts", "lib/metrics/**/*.ts", "lib/sql/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: { "@typescript-eslint/no-restricted-imports": restrict([noFramework]) },
  },
  {
    // The store is asynchronous (lib/db/sql.ts): a promise left unawaited is a write that may not happen, or happen
    // after the transaction it belongs to.
    files: ["**/*.{ts,tsx}"],
    ignores: ["e2e/**"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: false }],
    },
  },
];

export default config;
