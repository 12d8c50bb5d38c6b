-- Written by hand (drizzle-kit cannot express an index on expressions): the question-order index of 0014 with each
-- trace's outcome columns after its key, so the question page's previous/next failing question is a walk of the index
-- alone (lib/db/queries/question-traces.ts, getNeighbours), never of the run's rows (issue 36).
DROP INDEX IF EXISTS `traces_question_order`;--> statement-breakpoint
CREATE INDEX `traces_question_order` ON `traces` (`run_id`, (CAST(`question_id` AS INTEGER) = `question_id`) DESC, CAST(`question_id` AS INTEGER), `question_id`, `sample`, `ex_outcome`, `recorded_correct`);
