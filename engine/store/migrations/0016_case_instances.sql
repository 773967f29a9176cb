CREATE TABLE "case_instances" (
	"key" bigint PRIMARY KEY NOT NULL,
	"account" text NOT NULL,
	"partition" integer NOT NULL,
	"case_definition_id" text NOT NULL,
	"version" integer NOT NULL,
	"state" text NOT NULL,
	"document" jsonb NOT NULL,
	"variables" jsonb NOT NULL,
	"parent_key" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone,
	CONSTRAINT "case_instances_state_ck" CHECK ("case_instances"."state" in ('ACTIVE', 'COMPLETED', 'TERMINATED', 'INCIDENT'))
);
--> statement-breakpoint
CREATE INDEX "case_instances_account_created_idx" ON "case_instances" USING btree ("account","created_at","key");--> statement-breakpoint
CREATE INDEX "case_instances_account_case_created_idx" ON "case_instances" USING btree ("account","case_definition_id","created_at","key");--> statement-breakpoint
CREATE INDEX "case_instances_partition_live_idx" ON "case_instances" USING btree ("partition","key") WHERE "case_instances"."state" in ('ACTIVE', 'INCIDENT');