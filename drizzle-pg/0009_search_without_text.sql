-- Issue 36: the search index keeps no copy of the text it indexes: its documents hold their tsvector, not their
-- text (read again from the steps for the snippets of shown hits). Every trace is indexed again, in the background.
TRUNCATE "search_docs";--> statement-breakpoint
DELETE FROM "search_indexed";--> statement-breakpoint
DROP INDEX IF EXISTS "search_docs_tsv";--> statement-breakpoint
ALTER TABLE "search_docs" DROP COLUMN "tsv";--> statement-breakpoint
ALTER TABLE "search_docs" DROP COLUMN "content";--> statement-breakpoint
ALTER TABLE "search_docs" ADD COLUMN "tsv" tsvector NOT NULL;--> statement-breakpoint
CREATE INDEX "search_docs_tsv" ON "search_docs" USING gin ("tsv");--> statement-breakpoint
CREATE UNIQUE INDEX "search_indexed_base" ON "search_indexed" USING btree ("base");
