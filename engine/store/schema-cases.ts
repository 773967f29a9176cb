// The tables of CMMN case definitions (issue #20): the same pair as DMN
// decisions — a head row per (account, case id) holding the version counter
// its deploys lock, and a row per version with the whole CMMN document.
// Part of the one schema (schema.ts exports them): changing this file means
// running `npx drizzle-kit generate` and committing the new migration.
import { integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { instant } from './columns.ts';

/** One row per (account, case id): the version counter of case definitions. */
export const caseDefinitions = pgTable(
  'case_definitions',
  {
    account: text('account').notNull(),
    caseDefinitionId: text('case_definition_id').notNull(),
    latestVersion: integer('latest_version').notNull(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.account, t.caseDefinitionId] })],
);

export const caseDefinitionVersions = pgTable(
  'case_definition_versions',
  {
    account: text('account').notNull(),
    caseDefinitionId: text('case_definition_id').notNull(),
    version: integer('version').notNull(),
    caseName: text('case_name'),
    resourceName: text('resource_name').notNull(),
    xml: text('xml').notNull(),
    checksum: text('checksum').notNull(),
    deployedAt: instant('deployed_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.account, t.caseDefinitionId, t.version] })],
);
