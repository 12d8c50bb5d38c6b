CREATE TABLE `experiments` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`dataset_id` text,
	`run_ids` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `run_changes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`run_id` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`who` text NOT NULL,
	`change` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `run_changes_run` ON `run_changes` (`run_id`,`id`);--> statement-breakpoint
ALTER TABLE `runs` ADD `description` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `tags` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `archived_at` text;--> statement-breakpoint
CREATE INDEX `steps_blob` ON `steps` (`result_blob`) WHERE result_blob IS NOT NULL;