ALTER TABLE `traces` ADD `tokens_recorded` integer DEFAULT true NOT NULL;--> statement-breakpoint
UPDATE `traces` SET `tokens_recorded` = (`input_tokens` + `output_tokens` > 0);
