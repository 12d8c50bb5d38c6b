ALTER TABLE `questions` ADD `gold_answers` text;--> statement-breakpoint
ALTER TABLE `questions` ADD `eval_standard` text;