CREATE TABLE `rerun_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`trace_id` text NOT NULL,
	`client` text NOT NULL,
	`provider` text NOT NULL,
	`model` text NOT NULL,
	`variant` text NOT NULL,
	`state` text NOT NULL,
	`error` text,
	`result_trace_id` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`finished_at` text
);
--> statement-breakpoint
CREATE INDEX `rerun_jobs_trace` ON `rerun_jobs` (`trace_id`);--> statement-breakpoint
CREATE INDEX `rerun_jobs_state` ON `rerun_jobs` (`state`);