DROP INDEX "decision_versions_checksum_uq";--> statement-breakpoint
DROP INDEX "definition_versions_checksum_uq";