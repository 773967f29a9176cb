CREATE TABLE "request_keys" (
	"account" text NOT NULL,
	"request_key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"result" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "request_keys_account_request_key_pk" PRIMARY KEY("account","request_key")
);
--> statement-breakpoint
CREATE INDEX "request_keys_created_at" ON "request_keys" USING btree ("created_at");