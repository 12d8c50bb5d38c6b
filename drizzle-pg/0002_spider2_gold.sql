ALTER TABLE "questions" ADD COLUMN "gold_answers" text;--> statement-breakpoint
ALTER TABLE "questions" ADD COLUMN "eval_standard" text;