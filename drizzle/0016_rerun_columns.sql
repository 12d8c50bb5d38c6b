-- Backfilled by hand below: traces stored before the columns keep saying what they rerun.
ALTER TABLE `traces` ADD `rerun_of` text;--> statement-breakpoint
ALTER TABLE `traces` ADD `rerun_job` text;--> statement-breakpoint
UPDATE `traces` SET `rerun_of` = CASE WHEN json_type(`meta`, '$.rerun_of.trace_id') = 'text' THEN json_extract(`meta`, '$.rerun_of.trace_id') END, `rerun_job` = CASE WHEN json_type(`meta`, '$.rerun_job') = 'text' THEN json_extract(`meta`, '$.rerun_job') END WHERE `meta` IS NOT NULL AND json_valid(`meta`) AND (json_type(`meta`, '$.rerun_of.trace_id') = 'text' OR json_type(`meta`, '$.rerun_job') = 'text');--> statement-breakpoint
CREATE INDEX `traces_question` ON `traces` (`question_id`,`run_id`);--> statement-breakpoint
CREATE INDEX `traces_rerun_of` ON `traces` (`rerun_of`) WHERE rerun_of IS NOT NULL;--> statement-breakpoint
CREATE INDEX `traces_rerun_job` ON `traces` (`rerun_job`) WHERE rerun_job IS NOT NULL;