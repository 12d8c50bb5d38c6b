CREATE TABLE `blobs` (
	`hash` text PRIMARY KEY NOT NULL,
	`content` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `runs` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`system` text NOT NULL,
	`model` text NOT NULL,
	`benchmark` text,
	`config` text,
	`dataset_id` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `steps` (
	`trace_id` text NOT NULL,
	`seq` integer NOT NULL,
	`type` text NOT NULL,
	`tool` text,
	`args` text,
	`result` text,
	`result_blob` text,
	`result_size` integer DEFAULT 0 NOT NULL,
	`error` text,
	`role` text,
	`content` text,
	`started_at` text,
	`duration_ms` real,
	`input_tokens` integer,
	`output_tokens` integer,
	`reasoning_tokens` integer,
	`cached_input_tokens` integer,
	`model` text,
	`meta` text,
	PRIMARY KEY(`trace_id`, `seq`)
);
--> statement-breakpoint
CREATE TABLE `traces` (
	`id` text PRIMARY KEY NOT NULL,
	`run_id` text NOT NULL,
	`question_id` text NOT NULL,
	`sample` integer DEFAULT 0 NOT NULL,
	`db_id` text,
	`question_text` text,
	`evidence` text,
	`gold_sql` text,
	`difficulty` text,
	`directives` text,
	`final_sql` text,
	`recorded_correct` integer,
	`status` text NOT NULL,
	`outcome_error` text,
	`step_count` integer DEFAULT 0 NOT NULL,
	`tool_call_count` integer DEFAULT 0 NOT NULL,
	`error_step_count` integer DEFAULT 0 NOT NULL,
	`input_tokens` integer DEFAULT 0 NOT NULL,
	`output_tokens` integer DEFAULT 0 NOT NULL,
	`reasoning_tokens` integer DEFAULT 0 NOT NULL,
	`cached_input_tokens` integer DEFAULT 0 NOT NULL,
	`cost_usd` real,
	`started_at` text,
	`duration_ms` real,
	`meta` text,
	`upload_id` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `traces_run_question` ON `traces` (`run_id`,`question_id`,`sample`);--> statement-breakpoint
CREATE INDEX `traces_upload` ON `traces` (`upload_id`);--> statement-breakpoint
CREATE TABLE `upload_errors` (
	`upload_id` text NOT NULL,
	`line` integer NOT NULL,
	`message` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `upload_errors_upload` ON `upload_errors` (`upload_id`,`line`);--> statement-breakpoint
CREATE TABLE `uploads` (
	`id` text PRIMARY KEY NOT NULL,
	`source` text DEFAULT 'cli' NOT NULL,
	`file_name` text,
	`bytes` integer DEFAULT 0 NOT NULL,
	`lines` integer DEFAULT 0 NOT NULL,
	`inserted` integer DEFAULT 0 NOT NULL,
	`duplicates` integer DEFAULT 0 NOT NULL,
	`error_count` integer DEFAULT 0 NOT NULL,
	`run_ids` text DEFAULT '[]' NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
