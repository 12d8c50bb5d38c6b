import { defineConfig } from "drizzle-kit";

/** The PostgreSQL migrations (drizzle-pg/), generated from the schema derived from lib/db/schema.ts. */
export default defineConfig({
  dialect: "postgresql",
  schema: "./lib/db/schema-pg.ts",
  out: "./drizzle-pg",
});
