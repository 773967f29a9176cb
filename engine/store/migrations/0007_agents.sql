CREATE TABLE "agent_sessions" (
	"hash" text PRIMARY KEY NOT NULL,
	"agent" text NOT NULL,
	"account" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "agents" (
	"id" text PRIMARY KEY NOT NULL,
	"account" text NOT NULL,
	"name" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"rotated_at" timestamp with time zone,
	"retired_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "mailbox_messages" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account" text NOT NULL,
	"from_agent" text NOT NULL,
	"to_agent" text NOT NULL,
	"body" jsonb NOT NULL,
	"idempotency_key" text,
	"fingerprint" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"acked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "platform_apps" (
	"id" text PRIMARY KEY NOT NULL,
	"account" text NOT NULL,
	"name" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"rotated_at" timestamp with time zone,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "agent_sessions_agent_idx" ON "agent_sessions" USING btree ("agent");--> statement-breakpoint
CREATE UNIQUE INDEX "agents_token_hash_uq" ON "agents" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "agents_account_idx" ON "agents" USING btree ("account","id");--> statement-breakpoint
CREATE UNIQUE INDEX "mailbox_messages_idempotency_uq" ON "mailbox_messages" USING btree ("from_agent","idempotency_key");--> statement-breakpoint
CREATE INDEX "mailbox_messages_inbox_idx" ON "mailbox_messages" USING btree ("account","to_agent","id");--> statement-breakpoint
CREATE INDEX "mailbox_messages_unacked_idx" ON "mailbox_messages" USING btree ("account","to_agent","id") WHERE "mailbox_messages"."acked_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "platform_apps_token_hash_uq" ON "platform_apps" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "platform_apps_account_idx" ON "platform_apps" USING btree ("account","id");