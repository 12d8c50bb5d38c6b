CREATE TABLE `labels` (
	`trace_id` text NOT NULL,
	`seq` integer DEFAULT -1 NOT NULL,
	`label` text NOT NULL,
	`who` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`trace_id`, `seq`, `label`)
);
--> statement-breakpoint
CREATE INDEX `labels_label` ON `labels` (`label`);--> statement-breakpoint
CREATE TABLE `notes` (
	`trace_id` text NOT NULL,
	`seq` integer DEFAULT -1 NOT NULL,
	`note` text NOT NULL,
	`who` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`trace_id`, `seq`)
);
--> statement-breakpoint
CREATE TABLE `run_causes` (
	`run_id` text NOT NULL,
	`label` text NOT NULL,
	PRIMARY KEY(`run_id`, `label`)
);
--> statement-breakpoint
CREATE TABLE `search_indexed` (
	`trace_id` text PRIMARY KEY NOT NULL,
	`base` integer NOT NULL
);
--> statement-breakpoint
CREATE VIRTUAL TABLE `search_docs` USING fts5(content, trace_id UNINDEXED, seq UNINDEXED, field UNINDEXED, tokenize = "unicode61 remove_diacritics 2 tokenchars '_'");
