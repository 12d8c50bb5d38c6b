ALTER TABLE `rerun_jobs` ADD `harness` text;--> statement-breakpoint
ALTER TABLE `sweeps` ADD `harness` text;