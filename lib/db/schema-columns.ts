/** Columns the tables of the schema share. */
import { sql } from "drizzle-orm";
import { text } from "drizzle-orm/sqlite-core";

/** When the row was written: ISO 8601 in UTC, to the millisecond. */
export const createdAt = () =>
  text("created_at")
    .notNull()
    .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`);
