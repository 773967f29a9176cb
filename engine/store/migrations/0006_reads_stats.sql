CREATE TABLE "element_stats" (
	"account" text NOT NULL,
	"bpmn_process_id" text NOT NULL,
	"version" integer NOT NULL,
	"element_id" text NOT NULL,
	"partition" integer NOT NULL,
	"active" bigint DEFAULT 0 NOT NULL,
	"incidents" bigint DEFAULT 0 NOT NULL,
	"completed" bigint DEFAULT 0 NOT NULL,
	"canceled" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "element_stats_account_bpmn_process_id_version_element_id_partition_pk" PRIMARY KEY("account","bpmn_process_id","version","element_id","partition")
);
--> statement-breakpoint
DROP INDEX "instances_account_key_idx";--> statement-breakpoint
DROP INDEX "instances_account_state_key_idx";--> statement-breakpoint
DROP INDEX "instances_account_process_key_idx";--> statement-breakpoint
ALTER TABLE "incidents" ADD COLUMN "bpmn_process_id" text;--> statement-breakpoint
-- Hand-written: existing incidents take their instance's process, then the column is required.
UPDATE "incidents" SET "bpmn_process_id" = i."bpmn_process_id" FROM "instances" i WHERE i."key" = "incidents"."instance_key";--> statement-breakpoint
UPDATE "incidents" SET "bpmn_process_id" = '' WHERE "bpmn_process_id" IS NULL;--> statement-breakpoint
ALTER TABLE "incidents" ALTER COLUMN "bpmn_process_id" SET NOT NULL;--> statement-breakpoint
CREATE INDEX "incidents_account_process_key_idx" ON "incidents" USING btree ("account","bpmn_process_id","key");--> statement-breakpoint
CREATE INDEX "instances_account_created_idx" ON "instances" USING btree ("account","created_at","key");--> statement-breakpoint
CREATE INDEX "instances_account_state_created_idx" ON "instances" USING btree ("account","state","created_at","key");--> statement-breakpoint
CREATE INDEX "instances_account_process_created_idx" ON "instances" USING btree ("account","bpmn_process_id","version","created_at","key");--> statement-breakpoint
CREATE INDEX "instances_account_ended_idx" ON "instances" USING btree ("account","ended_at") WHERE "instances"."ended_at" is not null;--> statement-breakpoint
-- Hand-written: the counts of what was stored before this migration, from the
-- instances (their states) and their history (element records) and documents
-- (elements stuck on an incident); from here on every batch adds its deltas.
INSERT INTO "element_stats" ("account", "bpmn_process_id", "version", "element_id", "partition", "active", "incidents", "completed", "canceled")
SELECT "account", "bpmn_process_id", "version", '', "partition",
       count(*) FILTER (WHERE "state" = 'ACTIVE'), count(*) FILTER (WHERE "state" = 'INCIDENT'),
       count(*) FILTER (WHERE "state" = 'COMPLETED'), count(*) FILTER (WHERE "state" = 'TERMINATED')
FROM "instances" GROUP BY "account", "bpmn_process_id", "version", "partition";--> statement-breakpoint
INSERT INTO "element_stats" ("account", "bpmn_process_id", "version", "element_id", "partition", "active", "incidents", "completed", "canceled")
SELECT s."account", s."bpmn_process_id", s."version", s."element_id", s."partition",
       sum(s."activated") - sum(s."completed") - sum(s."terminated") - sum(s."stuck"), sum(s."stuck"), sum(s."completed"), sum(s."terminated")
FROM (
  SELECT i."account", i."bpmn_process_id", i."version", i."partition", r."element_id",
         count(*) FILTER (WHERE r."type" = 'ELEMENT_ACTIVATED') AS "activated",
         count(*) FILTER (WHERE r."type" = 'ELEMENT_COMPLETED') AS "completed",
         count(*) FILTER (WHERE r."type" = 'ELEMENT_TERMINATED') AS "terminated",
         0 AS "stuck"
  FROM "instances" i
  JOIN "history" h ON h."instance_key" = i."key"
  CROSS JOIN LATERAL (
    SELECT CASE WHEN jsonb_typeof(e) = 'array' THEN e->>0 ELSE e->>'type' END AS "type",
           CASE WHEN jsonb_typeof(e) = 'array' THEN e->>2 ELSE e->>'elementId' END AS "element_id"
    FROM jsonb_array_elements(CASE WHEN jsonb_typeof(h."records") = 'array' THEN h."records" ELSE jsonb_build_array(h."records") END) e
  ) r
  WHERE r."type" IN ('ELEMENT_ACTIVATED', 'ELEMENT_COMPLETED', 'ELEMENT_TERMINATED')
  GROUP BY 1, 2, 3, 4, 5
  UNION ALL
  SELECT i."account", i."bpmn_process_id", i."version", i."partition", el.value->>'elementId', 0, 0, 0, count(*)
  FROM "instances" i CROSS JOIN LATERAL jsonb_each(i."document"->'elements') el
  WHERE i."state" = 'INCIDENT' AND el.value ? 'incidentKey'
  GROUP BY 1, 2, 3, 4, 5
) s
GROUP BY 1, 2, 3, 4, 5;