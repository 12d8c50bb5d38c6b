CREATE TABLE "derived_cache" (
	"kind" text NOT NULL,
	"runs" text NOT NULL,
	"versions" text NOT NULL,
	"value" text NOT NULL,
	"created_at" text DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') NOT NULL,
	CONSTRAINT "derived_cache_kind_runs_pk" PRIMARY KEY("kind","runs")
);
