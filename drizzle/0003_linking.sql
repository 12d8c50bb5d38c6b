CREATE TABLE `run_tool_counts` (
	`run_id` text NOT NULL,
	`tool` text NOT NULL,
	`role` text NOT NULL,
	`calls` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`run_id`, `tool`)
);
--> statement-breakpoint
ALTER TABLE `traces` ADD `link_tp` integer;--> statement-breakpoint
ALTER TABLE `traces` ADD `link_pred` integer;--> statement-breakpoint
ALTER TABLE `traces` ADD `link_gold` integer;--> statement-breakpoint
ALTER TABLE `traces` ADD `ex_result_hash` text;