import boundaries from "eslint-plugin-boundaries";

/**
 * The whole layer table of docs/architecture.md, checked by eslint-plugin-boundaries (it resolves every import,
 * relative ones too): what each room may import as values. Types (`import type`) cross every boundary. A room not
 * named here may not be imported by anything but the rooms that list it; a new room must be added to be imported.
 */
const BASE = ["config", "text", "url", "files"];
const PURE = [...BASE, "trace", "sql", "metrics", "highlight"];
const STORE = [...PURE, "db"];
export const LAYERS = {
  // leaves: configuration and small helpers with no dependencies of their own
  config: [],
  text: [],
  url: [],
  files: [],
  // pure: the trace format, SQL analysis, metrics (no store, no framework)
  trace: BASE,
  sql: [...BASE, "trace"],
  metrics: [...BASE, "trace", "sql"],
  highlight: [...BASE, "trace", "sql"],
  // processes and the store
  sandbox: PURE,
  db: PURE,
  queries: STORE,
  jobs: STORE,
  // services the orchestration rooms share
  http: STORE,
  auth: STORE,
  eval: [...STORE, "sandbox"],
  labels: STORE,
  scores: STORE,
  search: [...STORE, "queries", "eval"],
  // orchestration: writes, processes, loops
  ingest: [...STORE, "queries", "search", "eval", "labels"],
  datasets: [...STORE, "queries", "ingest", "eval", "sandbox"],
  environment: [...STORE, "queries", "sandbox", "eval", "datasets"],
  // a run page's views computed ahead of its first view (units, tool counts, facets, directive savings)
  views: [...STORE, "queries", "environment"],
  otel: [...STORE, "http", "ingest"],
  agent: [
    ...STORE,
    "queries",
    "jobs",
    "sandbox",
    "eval",
    "ingest",
    "environment",
    "datasets",
    "otel",
    "http",
    "search",
    "views",
  ],
  // the versioned HTTP API: the pages' queries and figures as JSON, scores and labels written
  api: [...STORE, "queries", "labels", "scores", "search", "eval", "ingest", "http", "auth"],
  // the tops of lib: the demo seed and the CLI drive everything below them
  demo: [...STORE, "queries", "sandbox", "eval", "ingest", "datasets", "environment", "agent", "search", "labels"],
  cli: [
    ...STORE,
    ...[
      "queries",
      "jobs",
      "sandbox",
      "eval",
      "labels",
      "scores",
      "search",
      "ingest",
      "datasets",
      "environment",
      "otel",
      "views",
    ],
    ...["agent", "demo", "http", "auth", "api"],
  ],
};
const LIB_ROOMS = Object.keys(LAYERS).filter((r) => r !== "queries");
// Pages and route handlers use every room of lib but the CLI; components draw what pages hand them: no store, no
// queue, no processes, no app/ (server actions come as props).
const EVERY_ROOM = Object.keys(LAYERS);
const except = (...rooms) => EVERY_ROOM.filter((r) => !rooms.includes(r));
LAYERS.app = [...except("cli"), "components"];
LAYERS.components = [...except("db", "queries", "jobs", "sandbox", "cli", "demo"), "components"];
// Test support (temporary stores, factories, the real datasets) may use every room; only tests import it.
LAYERS.testing = EVERY_ROOM;

const layerElements = [
  { type: "queries", pattern: "lib/db/queries" },
  ...LIB_ROOMS.map((room) => ({ type: room, pattern: `lib/${room}` })),
  { type: "testing", pattern: "lib/testing" },
  { type: "components", pattern: "components" },
  { type: "app", pattern: "app" },
];
const layerPolicies = [
  { allow: { dependency: { kind: "type" } } },
  ...Object.entries(LAYERS).map(([room, may]) => ({
    from: { element: { type: room } },
    allow: { to: { element: { types: { anyOf: [room, ...may] } } } },
  })),
];

/**
 * @type {import("eslint").Linter.Config}
 * The lint block: every import of lib/, components/ and app/ resolved and checked against LAYERS. */
export const layerConfig = {
  files: ["lib/**/*.{ts,tsx}", "components/**/*.{ts,tsx}", "app/**/*.{ts,tsx}"],
  ignores: ["**/*.test.ts", "**/*.test.tsx"],
  plugins: { boundaries },
  settings: {
    "boundaries/elements": layerElements,
    "boundaries/include": ["lib/**", "components/**", "app/**"],
    "import/resolver": { typescript: { alwaysTryTypes: true }, node: true },
  },
  rules: {
    "boundaries/dependencies": [
      "error",
      {
        default: "disallow",
        message:
          "{{from.type}} may not import {{to.type}}: an arrow the layer table of docs/architecture.md does not allow (LAYERS in eslint.layers.mjs)",
        policies: layerPolicies,
      },
    ],
  },
};
