-- Full-text search on PostgreSQL (lib/search): the counterpart of SQLite's FTS5 table. One document per question,
-- final SQL, gold SQL and step, in rowid ranges per trace (search_indexed.base), with a tsvector and a GIN index.
CREATE TABLE "search_docs" (
	"rowid" bigint PRIMARY KEY NOT NULL,
	"content" text NOT NULL,
	"trace_id" text NOT NULL,
	"seq" bigint,
	"field" text NOT NULL,
	"tsv" tsvector GENERATED ALWAYS AS (to_tsvector('simple', "content")) STORED
);
--> statement-breakpoint
CREATE INDEX "search_docs_tsv" ON "search_docs" USING gin ("tsv");
--> statement-breakpoint
CREATE INDEX "search_docs_trace" ON "search_docs" ("trace_id");
--> statement-breakpoint
-- The words of a stored JSON value (its strings, numbers and booleans, joined), or the text itself when it is not JSON:
-- what SQLite's json_tree gives the FTS5 index.
CREATE FUNCTION metron_text_of(x text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF x IS NULL THEN RETURN ''; END IF;
  RETURN coalesce((SELECT string_agg(v #>> '{}', ' ') FROM jsonb_path_query(x::jsonb, 'strict $.**') AS v
                   WHERE jsonb_typeof(v) IN ('string', 'number', 'boolean')), '');
EXCEPTION WHEN others THEN
  RETURN x;
END $$;
