CREATE TABLE `otlp_groups` (
	`group_key` text PRIMARY KEY NOT NULL,
	`last_span_at` integer NOT NULL,
	`root_seen` integer DEFAULT 0 NOT NULL,
	`assembled_at` integer,
	`outcome` text
);
--> statement-breakpoint
CREATE TABLE `otlp_spans` (
	`trace_id` text NOT NULL,
	`span_id` text NOT NULL,
	`group_key` text NOT NULL,
	`body` text NOT NULL,
	`received_at` integer NOT NULL,
	PRIMARY KEY(`trace_id`, `span_id`)
);
--> statement-breakpoint
CREATE INDEX `otlp_spans_group` ON `otlp_spans` (`group_key`);