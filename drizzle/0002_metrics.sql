ALTER TABLE `runs` ADD `tool_roles` text;--> statement-breakpoint
ALTER TABLE `steps` ADD `tool_role` text;--> statement-breakpoint
ALTER TABLE `steps` ADD `tables` text;--> statement-breakpoint
ALTER TABLE `steps` ADD `exploratory` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `traces` ADD `exploratory_calls` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `traces` ADD `gold_count` integer;--> statement-breakpoint
ALTER TABLE `traces` ADD `over_exploration` integer;--> statement-breakpoint
ALTER TABLE `traces` ADD `extra_table_count` integer;--> statement-breakpoint
ALTER TABLE `traces` ADD `directive_recall` real;--> statement-breakpoint
ALTER TABLE `traces` ADD `directive_flag_rate` real;--> statement-breakpoint
ALTER TABLE `traces` ADD `violation_count` integer;--> statement-breakpoint
ALTER TABLE `traces` ADD `calls_schema_listing` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `traces` ADD `calls_schema_exploration` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `traces` ADD `calls_data_inspection` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `traces` ADD `calls_execution` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `traces` ADD `calls_submission` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `traces` ADD `calls_other` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `traces` ADD `cost_computed_usd` real;--> statement-breakpoint
ALTER TABLE `traces` ADD `table_sets` text;--> statement-breakpoint
ALTER TABLE `traces` ADD `ex_outcome` text;--> statement-breakpoint
ALTER TABLE `traces` ADD `ex_error` text;--> statement-breakpoint
ALTER TABLE `traces` ADD `evaluated_at` text;