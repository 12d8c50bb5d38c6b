CREATE TABLE `sweeps` (
	`run_id` text PRIMARY KEY NOT NULL,
	`dataset_id` text NOT NULL,
	`source_run_id` text,
	`selection` text NOT NULL,
	`provider` text NOT NULL,
	`model` text NOT NULL,
	`variant` text NOT NULL,
	`limits` text NOT NULL,
	`samples` integer DEFAULT 1 NOT NULL,
	`concurrency` integer DEFAULT 2 NOT NULL,
	`budget` text NOT NULL,
	`state` text NOT NULL,
	`stopped_by` text,
	`created_by` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`finished_at` text
);
--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_rerun_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`trace_id` text,
	`sweep_id` text,
	`dataset_id` text,
	`question_id` text,
	`sample` integer,
	`client` text NOT NULL,
	`provider` text NOT NULL,
	`model` text NOT NULL,
	`variant` text NOT NULL,
	`limits` text,
	`state` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`rate_limited` integer DEFAULT 0 NOT NULL,
	`not_before` integer,
	`worker` text,
	`lease_until` integer,
	`error` text,
	`result_trace_id` text,
	`tokens` integer,
	`cost_usd` real,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`started_at` text,
	`finished_at` text
);
--> statement-breakpoint
INSERT INTO `__new_rerun_jobs`("id", "trace_id", "client", "provider", "model", "variant", "state", "error", "result_trace_id", "created_at", "finished_at") SELECT "id", "trace_id", "client", "provider", "model", "variant", "state", "error", "result_trace_id", "created_at", "finished_at" FROM `rerun_jobs`;--> statement-breakpoint
DROP TABLE `rerun_jobs`;--> statement-breakpoint
ALTER TABLE `__new_rerun_jobs` RENAME TO `rerun_jobs`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `rerun_jobs_trace` ON `rerun_jobs` (`trace_id`);--> statement-breakpoint
CREATE INDEX `rerun_jobs_state` ON `rerun_jobs` (`state`);--> statement-breakpoint
CREATE INDEX `rerun_jobs_sweep` ON `rerun_jobs` (`sweep_id`,`state`);