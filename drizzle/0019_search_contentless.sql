-- Issue 36: the search index keeps no copy of the text it indexes. The FTS5 table is contentless (its documents'
-- text is read again from the steps for the snippets of shown hits), with contentless_delete so a deleted trace's
-- documents still go. A document's trace is found by its rowid: the multiple of SEARCH_SPAN below it is the trace's
-- base in search_indexed (unique). Every trace is indexed again, in the background, after this migration.
DROP TABLE IF EXISTS `search_docs`;--> statement-breakpoint
CREATE VIRTUAL TABLE `search_docs` USING fts5(content, content='', contentless_delete=1, tokenize = "unicode61 remove_diacritics 2 tokenchars '_'");--> statement-breakpoint
DELETE FROM `search_indexed`;--> statement-breakpoint
CREATE UNIQUE INDEX `search_indexed_base` ON `search_indexed` (`base`);
