/**
 * Writes one upload in one synchronous SQLite transaction with prepared statements. The
 * transaction is opened by `begin` and closed by `commit` or `rollback`: an upload that fails,
 * or a process that dies, leaves nothing of that upload behind.
 */
import type Database from "better-sqlite3";
import { lostTransaction, storeFault } from "./store-fault";
import type { Trace } from "@/lib/trace/types";
import { beginImmediate } from "@/lib/db/write-lock";
import type { RoleMap } from "@/lib/sql/classify-step";
import { mergeRoles, ToolCounter, type TraceMeasurer } from "./measure";
import { prepareTrace, STEP_COLUMNS, TRACE_COLUMNS, type PreparedTrace } from "./prepare";

export interface RunRef {
  id: string;
  name: string;
  system: string;
  model: string;
  /** What the file did not say: "system", "model" (stored as "unknown"), "dataset" (no dataset linked). */
  unknown: string[];
}

export interface UploadInfo {
  id: string;
  source: "cli" | "browser" | "agent" | "otlp";
  fileName?: string;
}

/**
 * The tool → role mapping of each run, cached: the upload's own mapping, else the run's stored one, else the
 * default. Reads the runs table through `sqlite` (the writer's connection, or the ingest worker's reader).
 */
export function runRoles(sqlite: Database.Database, toolRoles?: Record<string, string>): (runId: string) => RoleMap {
  const roles = new Map<string, RoleMap>();
  const stored = sqlite.prepare(`SELECT tool_roles AS roles FROM runs WHERE id = ?`);
  return (runId) => {
    let map = roles.get(runId);
    if (!map) {
      const json = (stored.get(runId) as { roles: string | null } | undefined)?.roles;
      map = mergeRoles(toolRoles ?? (json ? JSON.parse(json) : null));
      roles.set(runId, map);
    }
    return map;
  };
}

/** The upload's totals, written when it commits (either engine). */
export const FINISH_UPLOAD =
  "UPDATE uploads SET bytes = ?, lines = ?, inserted = ?, duplicates = ?, error_count = ?, run_ids = ? WHERE id = ?";

export function finishValues(
  upload: UploadInfo,
  totals: { bytes: number; lines: number; errors: number },
  counts: { inserted: number; duplicates: number },
  runs: RunRef[],
): [number, number, number, number, number, string, string] {
  return [
    totals.bytes,
    totals.lines,
    counts.inserted,
    counts.duplicates,
    totals.errors,
    JSON.stringify(runs.map((r) => r.id)),
    upload.id,
  ];
}

/** A run as an upload's report names it, with what the file did not say. */
export function runRef(p: PreparedTrace): RunRef {
  return {
    id: p.run.id,
    name: p.run.name,
    system: p.run.system,
    model: p.run.model,
    unknown: [
      ...(p.run.system === "unknown" ? ["system"] : []),
      ...(p.run.model === "unknown" ? ["model"] : []),
      ...(p.run.datasetId ? [] : ["dataset"]),
    ],
  };
}

export class Persister {
  private statements;
  private runs = new Map<string, RunRef>();
  private open = false;
  inserted = 0;
  duplicates = 0;

  private tools = new ToolCounter();

  constructor(
    private sqlite: Database.Database,
    private upload: UploadInfo,
    private measurer: TraceMeasurer,
    /** A tool → role mapping given at upload; saved on the runs it touches. */
    private toolRoles?: Record<string, string>,
  ) {
    const s = sqlite;
    this.rolesFor = runRoles(sqlite, toolRoles);
    this.statements = {
      run: s.prepare(
        `INSERT OR IGNORE INTO runs (id, name, system, model, benchmark, config, dataset_id, tool_roles) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      setRunRoles: s.prepare(`UPDATE runs SET tool_roles = ? WHERE id = ?`),
      trace: s.prepare(
        `INSERT OR IGNORE INTO traces (id, run_id, upload_id, ${TRACE_COLUMNS.join(", ")}) VALUES (?, ?, ?, ${TRACE_COLUMNS.map(() => "?").join(", ")})`,
      ),
      step: s.prepare(
        `INSERT INTO steps (trace_id, ${STEP_COLUMNS.join(", ")}) VALUES (?, ${STEP_COLUMNS.map(() => "?").join(", ")})`,
      ),
      blob: s.prepare(`INSERT OR IGNORE INTO blobs (hash, content) VALUES (?, ?)`),
      error: s.prepare(`INSERT INTO upload_errors (upload_id, line, message) VALUES (?, ?, ?)`),
      upload: s.prepare(`INSERT INTO uploads (id, source, file_name) VALUES (?, ?, ?)`),
      finish: s.prepare(FINISH_UPLOAD),
    };
  }

  /** Opens the upload's transaction, waiting (asynchronously) while another process writes. */
  async begin(): Promise<void> {
    await beginImmediate(this.sqlite);
    this.open = true;
    this.statements.upload.run(this.upload.id, this.upload.source, this.upload.fileName ?? null);
  }

  /** The tool → role mapping of a run: the upload's own, else the run's stored one, else the default. */
  rolesFor: (runId: string) => RoleMap;

  private savepointStatements?: { begin: Database.Statement; release: Database.Statement };
  private get savepoint() {
    return (this.savepointStatements ??= {
      begin: this.sqlite.prepare("SAVEPOINT trace"),
      release: this.sqlite.prepare("RELEASE trace"),
    });
  }

  /** Stores a trace unless the same content is already stored; returns its id and whether it was new. */
  add(trace: Trace): { id: string; inserted: boolean; runId: string } {
    return this.addPrepared(prepareTrace(trace, this.measurer, this.rolesFor));
  }

  /** Stores a trace prepared here or by the ingest worker, in a savepoint of its own. */
  addPrepared(prepared: PreparedTrace): { id: string; inserted: boolean; runId: string } {
    // A savepoint per trace: a write that fails half-way leaves nothing of that trace, and the upload goes on.
    const knownRun = this.runs.has(prepared.run.id);
    // Prepared once: `exec` would parse the statement again for every trace (a tenth of the ingest's time).
    // Outside the upload's transaction a savepoint would open one of its own and commit this trace alone.
    if (!this.sqlite.inTransaction) throw lostTransaction();
    this.savepoint.begin.run();
    try {
      const r = this.write(prepared);
      this.savepoint.release.run();
      return r;
    } catch (e) {
      // A fault of the store (a full disk) aborts the upload; SQLite may have rolled it all back already.
      const fault = storeFault(e) ?? (this.sqlite.inTransaction ? null : lostTransaction());
      if (fault) throw fault;
      this.sqlite.exec("ROLLBACK TO trace; RELEASE trace");
      if (!knownRun) this.runs.delete(prepared.run.id); // its row was rolled back with the trace
      throw e;
    }
  }

  private write(p: PreparedTrace): { id: string; inserted: boolean; runId: string } {
    const runId = p.run.id;
    if (!this.runs.has(runId)) {
      this.statements.run.run(
        runId,
        p.run.name,
        p.run.system,
        p.run.model,
        p.run.benchmark,
        p.run.config,
        p.run.datasetId,
        this.toolRoles ? JSON.stringify(this.toolRoles) : null,
      );
      if (this.toolRoles) this.statements.setRunRoles.run(JSON.stringify(this.toolRoles), runId);
      this.runs.set(runId, runRef(p));
    }
    const info = this.statements.trace.run(p.id, runId, this.upload.id, ...p.values);
    if (info.changes === 0) {
      this.duplicates++;
      return { id: p.id, inserted: false, runId };
    }
    for (const [hash, content] of p.blobs) this.statements.blob.run(hash, content);
    for (const row of p.steps) this.statements.step.run(p.id, ...row);
    this.tools.add(runId, p.tools);
    this.inserted++;
    return { id: p.id, inserted: true, runId };
  }

  addError(line: number, message: string): void {
    this.statements.error.run(this.upload.id, line, message);
  }

  commit(totals: { bytes: number; lines: number; errors: number }): RunRef[] {
    const runs = [...this.runs.values()];
    this.tools.flush(this.sqlite);
    const bump = this.sqlite.prepare("UPDATE runs SET version = version + 1 WHERE id = ?");
    for (const r of runs) bump.run(r.id);
    this.statements.finish.run(...finishValues(this.upload, totals, this, runs));
    if (!this.sqlite.inTransaction) throw lostTransaction();
    this.sqlite.exec("COMMIT");
    this.open = false;
    return runs;
  }

  rollback(): void {
    // After a fault SQLite may have rolled back already: a second ROLLBACK would hide the cause.
    if (this.open && this.sqlite.inTransaction) this.sqlite.exec("ROLLBACK");
    this.open = false;
  }
}
