import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

// The layers of docs/architecture.md: what each may import. Types cross freely (`import type`); values do not.
const restrict = (patterns) => ["error", { patterns: patterns.map((p) => ({ ...p, allowTypeImports: true })) }];
const noStore = {
  group: ["@/lib/db", "@/lib/db/*"],
  message: "the store is read in lib/db/queries and written in lib/ingest: take its types with `import type`",
};
const noFramework = {
  group: ["next", "next/*", "react", "react/*", "react-dom", "react-dom/*"],
  message: "this layer is pure: no Next or React",
};

const above = (...rooms) => ({
  group: rooms.flatMap((r) => [`@/lib/${r}`, `@/lib/${r}/*`]),
  message: "an arrow up the layers of docs/architecture.md: this room may not use that one",
});
const ORCHESTRATION = ["ingest", "eval", "agent", "environment", "datasets", "search", "labels", "otel", "cli", "demo"];

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
  {
    // Components draw what pages hand them; they never reach into the store.
    files: ["components/**/*.{ts,tsx}"],
    rules: {
      "@typescript-eslint/no-restricted-imports": restrict([
        noStore,
        { group: ["@/app", "@/app/*"], message: "components take server actions as props from the page" },
      ]),
    },
  },
  {
    // The pure layers: the trace format, SQL analysis, metrics.
    files: ["lib/trace/**/*.ts", "lib/metrics/**/*.ts", "lib/sql/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: { "@typescript-eslint/no-restricted-imports": restrict([noStore, noFramework]) },
  },
  {
    // The store reads and writes rows; it never calls the rooms that orchestrate (they call it).
    files: ["lib/db/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: { "@typescript-eslint/no-restricted-imports": restrict([above(...ORCHESTRATION, "jobs"), noFramework]) },
  },
  {
    // The job queue knows jobs by their rows: what a job is (an agent loop, a harness) is lib/agent's.
    files: ["lib/jobs/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: { "@typescript-eslint/no-restricted-imports": restrict([above(...ORCHESTRATION), noFramework]) },
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
