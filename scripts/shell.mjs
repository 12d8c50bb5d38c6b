// Helpers shared by the up, test and bench entry points.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export function step(title) {
  console.log(`\n▶ ${title}`);
}

/** Runs a command in the project root, inheriting stdio; exits the process when it fails. */
export function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, {
    cwd: root,
    stdio: "inherit",
    ...options,
    env: { ...process.env, ...options.env },
  });
  if (result.status !== 0) {
    console.error(`\n✖ ${cmd} ${args.join(" ")} failed (exit ${result.status ?? result.signal})`);
    process.exit(result.status ?? 1);
  }
}

const bin = (name) => path.join(root, "node_modules", ".bin", name);
export function runBin(name, args, options) {
  run(bin(name), args, options);
}

/** Installs dependencies when node_modules is missing or older than the lock file. */
export function ensureInstalled() {
  const marker = path.join(root, "node_modules", ".package-lock.json");
  const lock = path.join(root, "package-lock.json");
  if (
    existsSync(marker) &&
    existsSync(path.join(root, "node_modules", "better-sqlite3", "build", "Release", "better_sqlite3.node")) &&
    statSync(marker).mtimeMs >= statSync(lock).mtimeMs
  )
    return;
  step(
    "Installing dependencies (package-lock.json changed or node_modules is missing). better-sqlite3 compiles from source: 2–4 minutes on a 2-core machine, its compiler's output shows below",
  );
  run("npm", ["ci", "--no-audit", "--no-fund", "--foreground-scripts"]);
}

export const CHROMIUM = "/usr/bin/chromium";

/** Chromium's flags for headless runs on this kind of machine (no GPU, no network beyond the app, no sandbox). */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Debian's Chromium drives the end-to-end tests; Playwright cannot download its own browser here. */
export function ensureChromium() {
  if (existsSync(CHROMIUM)) return;
  step("Installing Debian's chromium with apt");
  const sudo = process.getuid?.() === 0 ? [] : ["sudo"];
  const apt = (args) =>
    run(sudo[0] ?? "apt-get", sudo.length ? ["apt-get", ...args] : args, {
      env: { DEBIAN_FRONTEND: "noninteractive" },
    });
  apt(["update"]);
  apt(["install", "-y", "--no-install-recommends", "chromium"]);
}

/** Source files of the app build: when none is newer than the last build, `npm run up` serves that build. */
const BUILD_INPUTS = ["app", "components", "lib", "public", "drizzle"];
const BUILD_FILES = [
  "next.config.ts",
  "package-lock.json",
  "tsconfig.json",
  "postcss.config.mjs",
  "instrumentation.ts",
  "instrumentation-node.ts",
  "proxy.ts",
];
const BUILD_STAMP = path.join(root, ".next", "metron-build-stamp");

function newestMtime(p) {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, entry)));
  return newest;
}

export function newestBuildInput() {
  return Math.max(
    ...BUILD_INPUTS.map((d) => newestMtime(path.join(root, d))),
    ...BUILD_FILES.map((f) => newestMtime(path.join(root, f))),
  );
}

/** Whether `.next` holds a production build of the current sources. */
export function buildIsFresh() {
  return (
    existsSync(path.join(root, ".next", "BUILD_ID")) &&
    existsSync(BUILD_STAMP) &&
    Number(readFileSync(BUILD_STAMP, "utf8")) >= newestBuildInput()
  );
}

/** Builds the app (`next build`, its own progress shown) and records which sources it was built from. */
export function buildApp() {
  const inputs = newestBuildInput();
  runBin("next", ["build"]);
  writeFileSync(BUILD_STAMP, String(inputs));
}
