CREATE TABLE "scores" (
	"trace_id" text NOT NULL,
	"seq" bigint DEFAULT -1 NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"value" double precision,
	"category" text,
	"source" text NOT NULL,
	"comment" text,
	"created_at" text DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL,
	CONSTRAINT "scores_trace_id_seq_name_pk" PRIMARY KEY("trace_id","seq","name")
);
--> statement-breakpoint
CREATE INDEX "scores_name" ON "scores" USING btree ("name");