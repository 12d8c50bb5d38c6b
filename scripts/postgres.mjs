// A private PostgreSQL server for the tests (issue 18): Debian's PostgreSQL (installed with apt-get where it is
// missing and this runs as root), a new cluster in a temporary folder, on a free port of 127.0.0.1 and a socket of its
// own, trust authentication, fsync off (a test server: its data lives for one run). Stopped and removed on exit.
// `METRON_TEST_DATABASE_URL` set: that server is used instead; `METRON_TEST_POSTGRES=off`: none (SQLite only).
import { spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";

function binDir() {
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return null;
  const versions = readdirSync(base)
    .filter((v) => existsSync(path.join(base, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(base, versions[0], "bin") : null;
}

function install() {
  if (process.getuid?.() !== 0) return false;
  console.log("PostgreSQL is not installed: installing Debian's postgresql with apt-get");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  // The package's own cluster is not needed: the tests make theirs.
  return spawnSync("apt-get", ["install", "-y", "-qq", "postgresql"], { stdio: "inherit", env }).status === 0;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts the server; resolves to its URL (or null when PostgreSQL is off or cannot be had). */
export async function startTestPostgres() {
  if (process.env.METRON_TEST_DATABASE_URL) return process.env.METRON_TEST_DATABASE_URL;
  if (process.env.METRON_TEST_POSTGRES === "off") return null;
  let bin = binDir();
  if (!bin && install()) bin = binDir();
  if (!bin) {
    console.log("PostgreSQL is not available: the PostgreSQL tests are left out (set METRON_TEST_DATABASE_URL)");
    return null;
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "metron-pg-"));
  // initdb and postgres refuse to run as root: as root, the cluster belongs to Debian's postgres user.
  const asRoot = process.getuid?.() === 0;
  const as = (cmd, args) =>
    asRoot
      ? spawnSync("runuser", ["-u", "postgres", "--", cmd, ...args], { encoding: "utf8" })
      : spawnSync(cmd, args, { encoding: "utf8" });
  if (asRoot) {
    const pw = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
    chownSync(dir, Number(pw.stdout), Number(gid.stdout));
  }
  const data = path.join(dir, "data");
  const init = as(path.join(bin, "initdb"), ["-D", data, "-A", "trust", "-U", "metron", "-E", "UTF8", "--no-locale"]);
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = as(path.join(bin, "pg_ctl"), ["-D", data, "-o", options, "-l", path.join(dir, "log"), "-w", "start"]);
  if (start.status !== 0) throw new Error(`PostgreSQL did not start: ${start.stderr}${start.stdout}`);
  process.on("exit", () => {
    as(path.join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "stop"]);
    rmSync(dir, { recursive: true, force: true });
  });
  const url = `postgres://metron@127.0.0.1:${port}/postgres`;
  console.log(`PostgreSQL ${path.basename(path.dirname(bin))} for the tests: ${url}`);
  return url;
}
