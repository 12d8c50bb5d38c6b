CREATE TABLE `derived_cache` (
	`kind` text NOT NULL,
	`runs` text NOT NULL,
	`versions` text NOT NULL,
	`value` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`kind`, `runs`)
);
