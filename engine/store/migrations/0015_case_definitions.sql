CREATE TABLE "case_definition_versions" (
	"account" text NOT NULL,
	"case_definition_id" text NOT NULL,
	"version" integer NOT NULL,
	"case_name" text,
	"resource_name" text NOT NULL,
	"xml" text NOT NULL,
	"checksum" text NOT NULL,
	"deployed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "case_definition_versions_account_case_definition_id_version_pk" PRIMARY KEY("account","case_definition_id","version")
);
--> statement-breakpoint
CREATE TABLE "case_definitions" (
	"account" text NOT NULL,
	"case_definition_id" text NOT NULL,
	"latest_version" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "case_definitions_account_case_definition_id_pk" PRIMARY KEY("account","case_definition_id")
);
