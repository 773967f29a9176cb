// The tables of CMMN cases (issue #20): the definitions, the same pair as
// DMN decisions — a head row per (account, case id) holding the version
// counter its deploys lock, and a row per version with the whole CMMN
// document — and the case instances, written by the partition leaders'
// batch statement beside process instances.
// Part of the one schema (schema.ts exports them): changing this file means
// running `npx drizzle-kit generate` and committing the new migration.
import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import type { CaseInstance } from '../cmmn/runtime/types.ts';
import type { Variables } from '../runtime/types.ts';
import { instant, key } from './columns.ts';

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

/**
 * One row per case instance: the whole runtime document (plan items, case
 * file, jobs, timers), as `instances` holds a process instance's. Its jobs,
 * timers, incidents and history live in the process tables under the case
 * key, the case definition id standing where a process id would.
 */
export const caseInstances = pgTable(
  'case_instances',
  {
    key: key('key').primaryKey(),
    account: text('account').notNull(),
    partition: integer('partition').notNull(),
    caseDefinitionId: text('case_definition_id').notNull(),
    version: integer('version').notNull(),
    state: text('state').$type<CaseInstance['state']>().notNull(),
    document: jsonb('document').$type<CaseInstance>().notNull(),
    variables: jsonb('variables').$type<Variables>().notNull(),
    parentKey: key('parent_key'),
    createdAt: instant('created_at').notNull().defaultNow(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
    endedAt: instant('ended_at'),
  },
  (t) => [
    check('case_instances_state_ck', sql`${t.state} in ('ACTIVE', 'COMPLETED', 'TERMINATED', 'INCIDENT')`),
    // Lists page newest first by (created_at, key) within an account, optionally by case definition.
    index('case_instances_account_created_idx').on(t.account, t.createdAt, t.key),
    index('case_instances_account_case_created_idx').on(t.account, t.caseDefinitionId, t.createdAt, t.key),
    // A new leader loads only the cases still alive on its partition.
    index('case_instances_partition_live_idx')
      .on(t.partition, t.key)
      .where(sql`${t.state} in ('ACTIVE', 'INCIDENT')`),
  ],
);
