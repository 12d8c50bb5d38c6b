-- Written by hand (drizzle-kit asks interactively whether a table was renamed): the durable queue's table holds sweep
-- jobs as well as single reruns, so it is named for what it holds (issue 32). Its indexes follow the new name.
ALTER TABLE `rerun_jobs` RENAME TO `jobs`;--> statement-breakpoint
DROP INDEX IF EXISTS `rerun_jobs_trace`;--> statement-breakpoint
DROP INDEX IF EXISTS `rerun_jobs_state`;--> statement-breakpoint
DROP INDEX IF EXISTS `rerun_jobs_sweep`;--> statement-breakpoint
CREATE INDEX `jobs_trace` ON `jobs` (`trace_id`);--> statement-breakpoint
CREATE INDEX `jobs_state` ON `jobs` (`state`);--> statement-breakpoint
CREATE INDEX `jobs_sweep` ON `jobs` (`sweep_id`,`state`);
