-- Issue 36: the search index (SQLite's FTS5) merges its segments 32 at a time, and its crisis merge waits for 32
-- segments on one level too (both were 16: migration 0023; FTS5's defaults are 4 and 16). Each level is merged half as
-- often, so each document is copied fewer times while a large backlog is indexed: a 100k-trace store's index was
-- built in 30.8–33.0 s against 33.7–36.9 s (four builds each, alternated, the same documents), with 47 segments
-- against 20 and searches as fast (docs/benchmarks.md). The settings are stored with the index and apply to what is
-- indexed from now on.
INSERT INTO `search_docs`(`search_docs`, `rank`) VALUES('automerge', 32);--> statement-breakpoint
INSERT INTO `search_docs`(`search_docs`, `rank`) VALUES('crisismerge', 32);
