-- Written by hand (drizzle-kit cannot express an index on expressions): a run's traces in question order — integer ids
-- as numbers first, then other ids by code point, then sample — exactly as lib/db/queries/traces.ts orders them, so
-- the first page of a run's question table is read from the index instead of sorting every trace of the run.
CREATE INDEX IF NOT EXISTS `traces_question_order` ON `traces` (`run_id`, (CAST(`question_id` AS INTEGER) = `question_id`) DESC, CAST(`question_id` AS INTEGER), `question_id`, `sample`);
