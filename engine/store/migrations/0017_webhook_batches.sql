CREATE TABLE "webhook_batches" (
	"key" text PRIMARY KEY NOT NULL,
	"partition" integer NOT NULL,
	"events" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_until" timestamp with time zone,
	"delivered_at" timestamp with time zone,
	"outcomes" jsonb
);
--> statement-breakpoint
CREATE INDEX "webhook_batches_undelivered_idx" ON "webhook_batches" USING btree ("created_at") WHERE "webhook_batches"."delivered_at" is null;