-- Issue 36: the search index (SQLite's FTS5) merges its segments 16 at a time instead of FTS5's default 4. Each batch
-- of traces the indexer writes makes new segments; with 4, every document was copied again each time four segments of
-- a level had gathered, and merging took a third of building the index (100k traces: 68 s with 4, 58 s with 8, 46 s
-- with 16, the same documents; queries no slower). Above 16, FTS5's crisis merge (16 segments on one level) would
-- merge first anyway. The setting is stored with the index and applies to what is indexed from now on.
INSERT INTO `search_docs`(`search_docs`, `rank`) VALUES('automerge', 16);
