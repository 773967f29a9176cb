CREATE TABLE "message_correlations" (
	"message_key" bigint NOT NULL,
	"bpmn_process_id" text NOT NULL,
	"instance_key" bigint NOT NULL,
	"partition" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "message_correlations_message_key_bpmn_process_id_pk" PRIMARY KEY("message_key","bpmn_process_id")
);
--> statement-breakpoint
CREATE INDEX "message_correlations_partition_expiry_idx" ON "message_correlations" USING btree ("partition","expires_at");