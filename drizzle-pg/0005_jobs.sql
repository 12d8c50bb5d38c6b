-- Written by hand (drizzle-kit asks interactively whether a table was renamed): the durable queue's table holds sweep
-- jobs as well as single reruns, so it is named for what it holds (issue 32). Its indexes follow the new name.
ALTER TABLE "rerun_jobs" RENAME TO "jobs";--> statement-breakpoint
ALTER TABLE "jobs" RENAME CONSTRAINT "rerun_jobs_pkey" TO "jobs_pkey";--> statement-breakpoint
ALTER INDEX "rerun_jobs_trace" RENAME TO "jobs_trace";--> statement-breakpoint
ALTER INDEX "rerun_jobs_state" RENAME TO "jobs_state";--> statement-breakpoint
ALTER INDEX "rerun_jobs_sweep" RENAME TO "jobs_sweep";
