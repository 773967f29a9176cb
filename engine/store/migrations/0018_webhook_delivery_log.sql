DROP INDEX "webhook_deliveries_endpoint_idx";--> statement-breakpoint
ALTER TABLE "webhook_batches" ADD COLUMN "endpoints" text[];--> statement-breakpoint
CREATE INDEX "webhook_batches_endpoints_idx" ON "webhook_batches" USING gin ("endpoints") WHERE "webhook_batches"."delivered_at" is not null;--> statement-breakpoint
CREATE INDEX "webhook_batches_delivered_idx" ON "webhook_batches" USING btree ("created_at") WHERE "webhook_batches"."delivered_at" is not null;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint_idx" ON "webhook_deliveries" USING btree ("endpoint_id","created_at","id");