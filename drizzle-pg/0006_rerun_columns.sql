-- Backfilled by hand below: traces stored before the columns keep saying what they rerun.
ALTER TABLE "traces" ADD COLUMN "rerun_of" text;--> statement-breakpoint
ALTER TABLE "traces" ADD COLUMN "rerun_job" text;--> statement-breakpoint
UPDATE "traces" SET "rerun_of" = CASE WHEN jsonb_typeof(("meta")::jsonb #> '{rerun_of,trace_id}') = 'string' THEN ("meta")::jsonb #>> '{rerun_of,trace_id}' END, "rerun_job" = CASE WHEN jsonb_typeof(("meta")::jsonb #> '{rerun_job}') = 'string' THEN ("meta")::jsonb #>> '{rerun_job}' END WHERE "meta" IS NOT NULL AND ("meta" LIKE '%"rerun_of"%' OR "meta" LIKE '%"rerun_job"%');--> statement-breakpoint
CREATE INDEX "traces_question" ON "traces" USING btree ("question_id","run_id");--> statement-breakpoint
CREATE INDEX "traces_rerun_of" ON "traces" USING btree ("rerun_of") WHERE rerun_of IS NOT NULL;--> statement-breakpoint
CREATE INDEX "traces_rerun_job" ON "traces" USING btree ("rerun_job") WHERE rerun_job IS NOT NULL;