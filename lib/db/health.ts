/**
 * Is the store usable (issue 28)? A store that cannot be opened, a PostgreSQL server out of reach, or a SQLite file
 * whose pages fail `PRAGMA quick_check` is reported on every page (components/ui/store-health.tsx) and by
 * `metron doctor`, with what to do, instead of a bare "Internal Server Error". The quick check reads the whole file:
 * it runs once at the server's start (in the background, in a process of its own: lib/db/quick-check-worker.mjs) and on
 * `metron doctor`; pages only ask the cheap question.
 */
import Database from "better-sqlite3";
import { existsSync } from "node:fs";
import path from "node:path";
import { spawn } from "node:child_process";
import { setPriority } from "node:os";
import { nonNegativeNumber } from "@/lib/config/env";
import { databasePath } from "./client";
import { postgresUrl } from "./store";

export interface StoreHealth {
  ok: boolean;
  engine: "sqlite" | "postgres";
  /** The file, or the server's URL without its password. */
  where: string;
  problem?: string;
  /** What to do about it. */
  advice?: string;
  /** Whether the file's pages were checked (quick_check), not only opened. */
  pagesChecked: boolean;
}

async function checkPostgres(url: string): Promise<StoreHealth> {
  const where = url.replace(/:[^:@/]*@/, ":***@");
  const pg = (await import("pg")).default;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return { ok: true, engine: "postgres", where, pagesChecked: false };
  } catch (e) {
    return {
      ok: false,
      engine: "postgres",
      where,
      pagesChecked: false,
      problem: `the PostgreSQL server cannot be reached: ${(e as Error).message}`,
      advice: "start the server, or correct DATABASE_URL (host, port, database, user); `metron doctor` checks again",
    };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The check's rows, or the error SQLite stopped it with, or why its process ended without an answer. */
type QuickCheck = { messages: string[] } | { error: { message: string; code: string } } | { stopped: string };

/** `PRAGMA quick_check(5)` of the file in a process of its own; on this thread when the script is not there. */
function quickCheck(file: string): Promise<QuickCheck> {
  const script = path.join(
    /*turbopackIgnore: true*/ process.env.METRON_ROOT ?? process.cwd(),
    "lib",
    "db",
    "quick-check-worker.mjs",
  );
  if (!existsSync(script)) {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return Promise.resolve({
        messages: (db.pragma("quick_check(5)") as { quick_check: string }[]).map((r) => r.quick_check),
      });
    } catch (e) {
      return Promise.resolve({ error: { message: (e as Error).message, code: (e as { code?: string }).code ?? "" } });
    } finally {
      db.close();
    }
  }
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, file], { stdio: ["ignore", "pipe", "pipe"] });
    // The lowest CPU priority: on a large store the check reads for minutes, beside a server answering pages.
    try {
      if (child.pid) setPriority(child.pid, 19);
    } catch {
      // not permitted here: it runs at the server's priority
    }
    const stop = () => child.kill("SIGKILL"); // the server exits: the check goes with it
    process.once("exit", stop);
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err = (err + d).slice(-2000)));
    child.once("error", (e) => resolve({ stopped: e.message }));
    child.once("close", (code, signal) => {
      process.off("exit", stop);
      try {
        resolve(JSON.parse(out) as QuickCheck);
      } catch {
        resolve({ stopped: `${signal ?? `exit code ${code}`}${err.trim() ? `: ${err.trim()}` : ""}` });
      }
    });
  });
}

async function checkSqlite(file: string, pages: boolean): Promise<StoreHealth> {
  const base = { engine: "sqlite" as const, where: file, pagesChecked: pages };
  if (!existsSync(file)) return { ok: true, ...base, pagesChecked: false }; // created and migrated on first use
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma("schema_version"); // reads the header: a file that is not SQLite fails here
    db.close();
    db = undefined;
    if (pages) {
      let problems: string[];
      const check = await quickCheck(file);
      // A check whose process ended without answering (killed, out of memory) says nothing of the file: the store is
      // reported as it opened, its pages unchecked, not as damaged.
      if ("stopped" in check) {
        console.error(`metron: the check of the store's pages stopped without an answer (${check.stopped})`);
        return { ok: true, ...base, pagesChecked: false };
      }
      if ("messages" in check) problems = check.messages.filter((m) => m !== "ok");
      // A page so damaged that the check itself stops on it.
      else if (/CORRUPT/.test(check.error.code)) problems = [check.error.message];
      else throw Object.assign(new Error(check.error.message), { code: check.error.code });
      if (problems.length)
        return {
          ok: false,
          ...base,
          problem: `the store's file is damaged: ${problems.join("; ")}`,
          advice:
            "stop writing to it: restore the last `metron backup`, or recover what is readable with `sqlite3 <file> .recover | sqlite3 new.db`, then point DATABASE_PATH at the result",
        };
    }
    return { ok: true, ...base };
  } catch (e) {
    const code = (e as { code?: string }).code ?? "";
    return {
      ok: false,
      ...base,
      problem: `the store's file cannot be opened (${code || "error"}: ${(e as Error).message})`,
      advice: /NOTADB|CORRUPT/.test(code)
        ? "the file is not a SQLite database or is damaged: restore the last `metron backup`, or point DATABASE_PATH at another file"
        : "check that the file and its folder exist and can be read and written by this process (DATABASE_PATH)",
    };
  } finally {
    db?.close();
  }
}

/** The store's health; `pages` also runs SQLite's quick_check over the whole file. */
export async function checkStore(options: { pages?: boolean } = {}): Promise<StoreHealth> {
  const url = postgresUrl();
  return url ? checkPostgres(url) : checkSqlite(databasePath(), options.pages ?? false);
}

const g = globalThis as unknown as {
  metronHealth?: { at: number; health: StoreHealth };
  metronPagesHealth?: StoreHealth;
};

/**
 * Records the start's full check; pages then report its finding until a restart. It begins `delayMs` after the start
 * (METRON_STORE_CHECK_DELAY_MS, 20 s): reading the whole file beside the first requests slowed them by 30–60 ms on a
 * 21 GB store, and made the first request of some pages take more than 300 ms. Meanwhile pages report the cheap check.
 */
export async function checkStoreAtStart(
  delayMs = nonNegativeNumber("METRON_STORE_CHECK_DELAY_MS", 20_000),
): Promise<void> {
  if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs).unref());
  g.metronPagesHealth = await checkStore({ pages: true });
  if (!g.metronPagesHealth.ok) console.error(`metron: ${g.metronPagesHealth.problem} — ${g.metronPagesHealth.advice}`);
}

/** What pages show: the start's full check if it found a problem, else a cheap check at most every 10 s. */
export async function storeHealth(now = Date.now()): Promise<StoreHealth> {
  if (g.metronPagesHealth && !g.metronPagesHealth.ok) return g.metronPagesHealth;
  if (g.metronHealth && now - g.metronHealth.at < 10_000) return g.metronHealth.health;
  const health = await checkStore();
  g.metronHealth = { at: now, health };
  return health;
}
