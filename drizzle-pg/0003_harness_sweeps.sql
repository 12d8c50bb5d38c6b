ALTER TABLE "rerun_jobs" ADD COLUMN "harness" text;--> statement-breakpoint
ALTER TABLE "sweeps" ADD COLUMN "harness" text;