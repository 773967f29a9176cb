CREATE TABLE "accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"credit_balance" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "commands" (
	"partition" integer NOT NULL,
	"command_key" text NOT NULL,
	"result" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "commands_partition_command_key_pk" PRIMARY KEY("partition","command_key")
);
--> statement-breakpoint
CREATE TABLE "decision_versions" (
	"account" text NOT NULL,
	"decision_id" text NOT NULL,
	"version" integer NOT NULL,
	"decision_name" text,
	"resource_name" text NOT NULL,
	"xml" text NOT NULL,
	"checksum" text NOT NULL,
	"deployed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "decision_versions_account_decision_id_version_pk" PRIMARY KEY("account","decision_id","version")
);
--> statement-breakpoint
CREATE TABLE "decisions" (
	"account" text NOT NULL,
	"decision_id" text NOT NULL,
	"latest_version" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "decisions_account_decision_id_pk" PRIMARY KEY("account","decision_id")
);
--> statement-breakpoint
CREATE TABLE "definition_versions" (
	"account" text NOT NULL,
	"bpmn_process_id" text NOT NULL,
	"version" integer NOT NULL,
	"resource_name" text NOT NULL,
	"xml" text NOT NULL,
	"checksum" text NOT NULL,
	"deployed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "definition_versions_account_bpmn_process_id_version_pk" PRIMARY KEY("account","bpmn_process_id","version")
);
--> statement-breakpoint
CREATE TABLE "definitions" (
	"account" text NOT NULL,
	"bpmn_process_id" text NOT NULL,
	"latest_version" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "definitions_account_bpmn_process_id_pk" PRIMARY KEY("account","bpmn_process_id")
);
--> statement-breakpoint
CREATE TABLE "history" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account" text NOT NULL,
	"partition" integer NOT NULL,
	"instance_key" bigint NOT NULL,
	"position" integer NOT NULL,
	"record" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "incidents" (
	"key" bigint PRIMARY KEY NOT NULL,
	"account" text NOT NULL,
	"partition" integer NOT NULL,
	"instance_key" bigint NOT NULL,
	"element_id" text NOT NULL,
	"element_instance_key" bigint NOT NULL,
	"job_key" bigint,
	"type" text NOT NULL,
	"message" text NOT NULL,
	"state" text DEFAULT 'OPEN' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	CONSTRAINT "incidents_state_ck" CHECK ("incidents"."state" in ('OPEN', 'RESOLVED'))
);
--> statement-breakpoint
CREATE TABLE "instances" (
	"key" bigint PRIMARY KEY NOT NULL,
	"account" text NOT NULL,
	"partition" integer NOT NULL,
	"bpmn_process_id" text NOT NULL,
	"version" integer NOT NULL,
	"state" text NOT NULL,
	"document" jsonb NOT NULL,
	"variables" jsonb NOT NULL,
	"parent_key" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone,
	CONSTRAINT "instances_state_ck" CHECK ("instances"."state" in ('ACTIVE', 'COMPLETED', 'TERMINATED', 'INCIDENT'))
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"key" bigint PRIMARY KEY NOT NULL,
	"account" text NOT NULL,
	"partition" integer NOT NULL,
	"instance_key" bigint NOT NULL,
	"bpmn_process_id" text NOT NULL,
	"process_version" integer NOT NULL,
	"element_id" text NOT NULL,
	"element_instance_key" bigint NOT NULL,
	"type" text NOT NULL,
	"retries" integer NOT NULL,
	"state" text NOT NULL,
	"worker" text,
	"custom_headers" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"error_message" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"activated_at" timestamp with time zone,
	CONSTRAINT "jobs_state_ck" CHECK ("jobs"."state" in ('ACTIVATABLE', 'ACTIVATED', 'FAILED'))
);
--> statement-breakpoint
CREATE TABLE "partitions" (
	"id" integer PRIMARY KEY NOT NULL,
	"leader" text,
	"epoch" bigint DEFAULT 0 NOT NULL,
	"lease_expires_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "timers" (
	"key" bigint PRIMARY KEY NOT NULL,
	"account" text NOT NULL,
	"partition" integer NOT NULL,
	"instance_key" bigint,
	"owner_key" bigint,
	"bpmn_process_id" text NOT NULL,
	"process_version" integer NOT NULL,
	"element_id" text NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"schedule" jsonb NOT NULL,
	"fired_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "commands_partition_created_idx" ON "commands" USING btree ("partition","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "decision_versions_checksum_uq" ON "decision_versions" USING btree ("account","decision_id","checksum");--> statement-breakpoint
CREATE UNIQUE INDEX "definition_versions_checksum_uq" ON "definition_versions" USING btree ("account","bpmn_process_id","checksum");--> statement-breakpoint
CREATE UNIQUE INDEX "history_instance_position_uq" ON "history" USING btree ("instance_key","position");--> statement-breakpoint
CREATE INDEX "incidents_account_key_idx" ON "incidents" USING btree ("account","key");--> statement-breakpoint
CREATE INDEX "incidents_account_state_key_idx" ON "incidents" USING btree ("account","state","key");--> statement-breakpoint
CREATE INDEX "incidents_instance_idx" ON "incidents" USING btree ("instance_key");--> statement-breakpoint
CREATE INDEX "instances_account_key_idx" ON "instances" USING btree ("account","key");--> statement-breakpoint
CREATE INDEX "instances_account_state_key_idx" ON "instances" USING btree ("account","state","key");--> statement-breakpoint
CREATE INDEX "instances_account_process_key_idx" ON "instances" USING btree ("account","bpmn_process_id","key");--> statement-breakpoint
CREATE INDEX "instances_variables_gin" ON "instances" USING gin ("variables" jsonb_path_ops);--> statement-breakpoint
CREATE INDEX "instances_partition_live_idx" ON "instances" USING btree ("partition","key") WHERE "instances"."state" in ('ACTIVE', 'INCIDENT');--> statement-breakpoint
CREATE INDEX "instances_parent_idx" ON "instances" USING btree ("parent_key") WHERE "instances"."parent_key" is not null;--> statement-breakpoint
CREATE INDEX "jobs_account_type_state_idx" ON "jobs" USING btree ("account","type","state");--> statement-breakpoint
CREATE INDEX "jobs_partition_idx" ON "jobs" USING btree ("partition","key");--> statement-breakpoint
CREATE INDEX "jobs_instance_idx" ON "jobs" USING btree ("instance_key");--> statement-breakpoint
CREATE INDEX "timers_partition_due_idx" ON "timers" USING btree ("partition","due_at");