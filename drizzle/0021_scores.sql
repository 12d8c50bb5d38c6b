CREATE TABLE `scores` (
	`trace_id` text NOT NULL,
	`seq` integer DEFAULT -1 NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`value` real,
	`category` text,
	`source` text NOT NULL,
	`comment` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`trace_id`, `seq`, `name`)
);
--> statement-breakpoint
CREATE INDEX `scores_name` ON `scores` (`name`);