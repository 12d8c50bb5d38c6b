/**
 * Faults of the store itself (issue 28): a full disk, an I/O error, a corrupted file, a lost connection, or a
 * transaction the engine ended on its own. Such an error is never one trace's failure: the whole upload aborts, its
 * transaction is rolled back, and the user is told the cause. (On SQLITE_FULL, SQLite rolls the transaction back by
 * itself; carrying on would write the rest of the upload in autocommit.)
 */
export class StoreFaultError extends Error {}

const SQLITE_CAUSES: [RegExp, string][] = [
  [/^SQLITE_FULL/, "the disk is full"],
  [/^SQLITE_IOERR/, "the disk could not be read or written"],
  [/^SQLITE_(CORRUPT|NOTADB)/, "the store's file is damaged"],
  [/^SQLITE_NOMEM/, "SQLite ran out of memory"],
  [/^SQLITE_READONLY/, "the store cannot be written (read-only)"],
  [/^SQLITE_CANTOPEN/, "the store's file cannot be opened"],
];
// PostgreSQL SQLSTATE classes: 53 insufficient resources (53100 disk full), 58 system error, 08 connection, 57P
// operator intervention, XX internal.
const PG_CAUSES: [RegExp, string][] = [
  [/^53100$/, "the database server's disk is full"],
  [/^53/, "the database server ran out of resources"],
  [/^58/, "the database server could not read or write its files"],
  [/^08/, "the connection to the database server was lost"],
  [/^57P/, "the database server is shutting down"],
  [/^XX/, "the database server failed internally"],
];

const upload = "nothing of the upload was stored; mend it and upload the file again";

/** The store fault `e` is, as an error that names its cause, or null when it is an ordinary (per-trace) failure. */
export function storeFault(e: unknown): StoreFaultError | null {
  if (e instanceof StoreFaultError) return e;
  const code = String((e as { code?: unknown })?.code ?? "");
  const message = (e as Error)?.message ?? String(e);
  for (const [pattern, cause] of code.startsWith("SQLITE") ? SQLITE_CAUSES : PG_CAUSES)
    if (pattern.test(code)) return new StoreFaultError(`${cause} (${code}: ${message}): ${upload}`);
  return null;
}

/** The upload's transaction is gone (the engine rolled it back after a fault): nothing more may be written. */
export function lostTransaction(): StoreFaultError {
  return new StoreFaultError(`the store ended the upload's transaction after a fault: ${upload}`);
}
