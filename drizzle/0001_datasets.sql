CREATE TABLE `databases` (
	`id` text PRIMARY KEY NOT NULL,
	`dataset_id` text NOT NULL,
	`db_id` text NOT NULL,
	`path` text NOT NULL,
	`sha256` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`schema_only` integer DEFAULT false NOT NULL,
	`source` text NOT NULL,
	`tables` text NOT NULL,
	`foreign_keys` text NOT NULL,
	`table_count` integer DEFAULT 0 NOT NULL,
	`column_count` integer DEFAULT 0 NOT NULL,
	`row_count` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `databases_dataset` ON `databases` (`dataset_id`,`db_id`);--> statement-breakpoint
CREATE TABLE `datasets` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`format` text NOT NULL,
	`question_count` integer DEFAULT 0 NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `datasets_name_unique` ON `datasets` (`name`);--> statement-breakpoint
CREATE TABLE `gold_results` (
	`db_sha256` text NOT NULL,
	`sql_hash` text NOT NULL,
	`result` text,
	`error` text,
	PRIMARY KEY(`db_sha256`, `sql_hash`)
);
--> statement-breakpoint
CREATE TABLE `questions` (
	`dataset_id` text NOT NULL,
	`question_id` text NOT NULL,
	`db_id` text NOT NULL,
	`text` text NOT NULL,
	`evidence` text,
	`gold_sql` text,
	`difficulty` text,
	`gold_tables` text,
	`gold_tables_method` text,
	`gold_tables_error` text,
	`position` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`dataset_id`, `question_id`)
);
