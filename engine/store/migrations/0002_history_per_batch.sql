-- History packs a batch's records for one instance into one row (schema.ts):
-- existing rows become one-record arrays, keeping their positions, and the
-- surrogate id goes (its btree cost every record an index entry). The
-- command log's pruning index becomes BRIN. Hand-ordered: a table cannot
-- gain its new primary key before the old one is dropped with "id".
ALTER TABLE "history" ADD COLUMN "records" jsonb;--> statement-breakpoint
UPDATE "history" SET "records" = jsonb_build_array("record");--> statement-breakpoint
ALTER TABLE "history" ALTER COLUMN "records" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "history" DROP COLUMN "record";--> statement-breakpoint
ALTER TABLE "history" DROP COLUMN "id";--> statement-breakpoint
DROP INDEX "history_instance_position_uq";--> statement-breakpoint
ALTER TABLE "history" ADD CONSTRAINT "history_instance_key_position_pk" PRIMARY KEY("instance_key","position");--> statement-breakpoint
DROP INDEX "commands_partition_created_idx";--> statement-breakpoint
CREATE INDEX "commands_created_brin" ON "commands" USING brin ("created_at");
