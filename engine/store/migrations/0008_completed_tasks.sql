CREATE TABLE "completed_tasks" (
	"key" bigint PRIMARY KEY NOT NULL,
	"account" text NOT NULL,
	"partition" integer NOT NULL,
	"instance_key" bigint NOT NULL,
	"bpmn_process_id" text NOT NULL,
	"process_version" integer NOT NULL,
	"element_id" text NOT NULL,
	"element_instance_key" bigint NOT NULL,
	"assignee" text,
	"created_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "completed_tasks_account_completed_idx" ON "completed_tasks" USING btree ("account","completed_at","key");--> statement-breakpoint
CREATE INDEX "completed_tasks_account_assignee_completed_idx" ON "completed_tasks" USING btree ("account","assignee","completed_at","key");--> statement-breakpoint
CREATE INDEX "completed_tasks_instance_idx" ON "completed_tasks" USING btree ("instance_key");