/**
 * The store's schema on PostgreSQL, derived from the one description of the tables (`schema.ts`): same tables, same
 * column names, same values. Integers (and SQLite's 0/1 booleans) are `bigint`, reals `double precision`, text and
 * JSON stay `text`, so a row reads the same from either engine and `metron export` / `import` move it unchanged.
 * drizzle-kit generates `drizzle-pg/` from this file (drizzle-pg.config.ts), as it does `drizzle/` from schema.ts.
 */
import { is, SQL, sql } from "drizzle-orm";
import {
  bigint,
  doublePrecision,
  index,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  type PgColumnBuilderBase,
} from "drizzle-orm/pg-core";
import { getTableConfig, type SQLiteColumn, type SQLiteTable } from "drizzle-orm/sqlite-core";
import * as lite from "./schema";

/** SQLite's `strftime('%Y-%m-%dT%H:%M:%fZ','now')`, to the millisecond, in UTC. */
const NOW_ISO = sql`to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

function sqlText(value: SQL): string {
  return value.queryChunks
    .map((c) => (c as { value?: unknown }).value)
    .flat()
    .join("");
}

function pgColumn(col: SQLiteColumn): PgColumnBuilderBase {
  const kind = col.columnType;
  const autoIncrement = (col as unknown as { autoIncrement?: boolean }).autoIncrement;
  let b;
  if (kind === "SQLiteInteger" || kind === "SQLiteBoolean" || kind === "SQLiteTimestamp") {
    b = bigint(col.name, { mode: "number" });
    if (autoIncrement) b = b.generatedByDefaultAsIdentity();
  } else if (kind === "SQLiteReal") b = doublePrecision(col.name);
  else if (kind === "SQLiteText" || kind === "SQLiteTextJson") b = text(col.name);
  else throw new Error(`schema-pg: no PostgreSQL type for ${col.name} (${kind})`);
  if (col.primary) b = b.primaryKey();
  else if (col.notNull) b = b.notNull();
  if (col.hasDefault && col.default !== undefined && !autoIncrement) {
    const d = col.default;
    if (is(d, SQL)) b = b.default(/strftime/i.test(sqlText(d)) ? NOW_ISO : d);
    else if (typeof d === "boolean") b = b.default(sql.raw(d ? "1" : "0"));
    else if (typeof d === "number") b = b.default(sql.raw(String(d)));
    else if (typeof d === "string") b = b.default(sql`${sql.raw(`'${d.replace(/'/g, "''")}'`)}`);
    else throw new Error(`schema-pg: default of ${col.name} is not a literal or SQL`);
  }
  return b;
}

/** One PostgreSQL table from one SQLite table: columns, primary keys, indexes (partial ones too), unique columns. */
function derive(table: SQLiteTable) {
  const cfg = getTableConfig(table);
  const columns = Object.fromEntries(cfg.columns.map((c) => [c.name, pgColumn(c)]));
  return pgTable(cfg.name, columns, (t) => {
    const col = (name: string) => (t as Record<string, never>)[name];
    const extra = [];
    for (const pk of cfg.primaryKeys) {
      const [first, ...rest] = pk.columns.map((c) => col(c.name));
      extra.push(primaryKey({ columns: [first, ...rest] }));
    }
    for (const c of cfg.columns)
      if (c.isUnique && !c.primary)
        extra.push(uniqueIndex(c.uniqueName ?? `${cfg.name}_${c.name}_unique`).on(col(c.name)));
    for (const i of cfg.indexes) {
      const [first, ...rest] = i.config.columns.map((c) => col((c as SQLiteColumn).name));
      let ix = (i.config.unique ? uniqueIndex : index)(i.config.name).on(first, ...rest);
      if (i.config.where) ix = ix.where(i.config.where);
      extra.push(ix);
    }
    return extra;
  });
}

export const runs = derive(lite.runs);
export const uploads = derive(lite.uploads);
export const uploadErrors = derive(lite.uploadErrors);
export const traces = derive(lite.traces);
export const steps = derive(lite.steps);
export const blobs = derive(lite.blobs);
export const datasets = derive(lite.datasets);
export const databases = derive(lite.databases);
export const questions = derive(lite.questions);
export const goldResults = derive(lite.goldResults);
export const runToolCounts = derive(lite.runToolCounts);
export const jobs = derive(lite.jobs);
export const sweeps = derive(lite.sweeps);
export const runChanges = derive(lite.runChanges);
export const experiments = derive(lite.experiments);
export const searchIndexed = derive(lite.searchIndexed);
export const labels = derive(lite.labels);
export const notes = derive(lite.notes);
export const runCauses = derive(lite.runCauses);
export const otlpSpans = derive(lite.otlpSpans);
export const otlpGroups = derive(lite.otlpGroups);
export const runTotals = derive(lite.runTotals);
export const derivedCache = derive(lite.derivedCache);
export const scores = derive(lite.scores);
