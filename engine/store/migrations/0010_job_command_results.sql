CREATE TABLE "job_command_results" (
	"job_key" bigint NOT NULL,
	"key_hash" bigint NOT NULL,
	"result" jsonb,
	"fingerprint" text,
	"request" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "job_command_results_job_key_key_hash_pk" PRIMARY KEY("job_key","key_hash")
);
--> statement-breakpoint
CREATE INDEX "job_command_results_created_brin" ON "job_command_results" USING brin ("created_at");