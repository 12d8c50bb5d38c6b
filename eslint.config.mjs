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
    rules: { "@typescript-eslint/no-restricted-imports": restrict([noStore]) },
  },
  {
    // The pure layers: the trace format, SQL analysis, metrics.
    files: ["lib/trace/**/*.ts", "lib/metrics/**/*.ts", "lib/sql/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: { "@typescript-eslint/no-restricted-imports": restrict([noStore, noFramework]) },
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
