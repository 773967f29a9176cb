CREATE TABLE "buffered_messages" (
	"partition" integer NOT NULL,
	"key" bigint NOT NULL,
	"account" text NOT NULL,
	"name" text NOT NULL,
	"correlation_key" text NOT NULL,
	"variables" jsonb NOT NULL,
	"message_id" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "buffered_messages_partition_key_pk" PRIMARY KEY("partition","key")
);
--> statement-breakpoint
CREATE INDEX "buffered_messages_partition_expiry_idx" ON "buffered_messages" USING btree ("partition","expires_at");