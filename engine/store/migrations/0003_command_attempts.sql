CREATE TABLE "command_attempts" (
	"partition" integer NOT NULL,
	"command_key" text NOT NULL,
	"attempts" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "command_attempts_partition_command_key_pk" PRIMARY KEY("partition","command_key")
);
