-- Written by hand (drizzle-kit cannot express an index on expressions): the question-order index of 0004 with each
-- trace's outcome columns after its key, so the question page's previous/next failing question is a walk of the index
-- alone (lib/db/queries/question-traces.ts, getNeighbours), never of the run's rows (issue 36).
DROP INDEX IF EXISTS "traces_question_order";--> statement-breakpoint
CREATE INDEX "traces_question_order" ON "traces" ("run_id", ("question_id" ~ '^(0|-?[1-9][0-9]{0,17})$') DESC, (CASE WHEN "question_id" ~ '^(0|-?[1-9][0-9]{0,17})$' THEN ("question_id")::bigint END), "question_id" COLLATE "C", "sample") INCLUDE ("ex_outcome", "recorded_correct");
