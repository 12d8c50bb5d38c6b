ALTER TABLE `runs` ADD `ex_settings` text;--> statement-breakpoint
ALTER TABLE `steps` ADD `empty_result` integer;--> statement-breakpoint
ALTER TABLE `steps` ADD `refines` integer;--> statement-breakpoint
ALTER TABLE `traces` ADD `empty_probe_count` integer;