// engine/store: Postgres (or embedded PGlite) as Orca's source of truth —
// schema, migrations, the leader's fenced batch commit, and the reads the
// API and leaders need. `createStore(db)` bundles the repositories; each is
// also usable on its own.
import { commandsRepository } from './commands-repository.ts';
import { completedTasksRepository } from './completed-tasks-repository.ts';
import { commitBatch, commitBatches, type Batch, type CommitInput } from './commit-batch.ts';
import type { Db } from './db.ts';
import { accountsRepository } from './accounts-repository.ts';
import { accountSummaryRepository } from './account-summary-repository.ts';
import { agentsRepository } from './agents-repository.ts';
import { caseDefinitionsRepository } from './case-definitions-repository.ts';
import { caseInstancesRepository } from './case-instances-repository.ts';
import { decisionsRepository } from './decisions-repository.ts';
import { definitionsRepository } from './definitions-repository.ts';
import { historyRepository } from './history-repository.ts';
import { identityRepository } from './identity-repository.ts';
import { incidentsRepository } from './incidents-repository.ts';
import { instancesRepository } from './instances-repository.ts';
import { jobsRepository } from './jobs-repository.ts';
import { tasksRepository } from './tasks-repository.ts';
import { leasesRepository } from './leases-repository.ts';
import { loginRepository } from './login-repository.ts';
import { ledgerRepository } from './ledger-repository.ts';
import { mailOutboxRepository } from './mail-outbox-repository.ts';
import { mailboxRepository } from './mailbox-repository.ts';
import { platformAppsRepository } from './platform-apps-repository.ts';
import { requestKeysRepository } from './request-keys-repository.ts';
import { statisticsRepository } from './statistics-repository.ts';
import { messagesRepository } from './messages-repository.ts';
import { timersRepository } from './timers-repository.ts';
import { webhooksRepository } from './webhooks-repository.ts';

/** `writer` carries the batch commits (Database.writer); by default `db` does. */
export function createStore(db: Db, writer: Db = db) {
  return {
    /** The drizzle handle itself, for reads no repository covers (tests, diagnostics); writes go through repositories. */
    db,
    accounts: accountsRepository(db),
    definitions: definitionsRepository(db),
    decisions: decisionsRepository(db),
    cases: caseDefinitionsRepository(db),
    caseInstances: caseInstancesRepository(db),
    instances: instancesRepository(db),
    jobs: jobsRepository(db),
    tasks: tasksRepository(db),
    completedTasks: completedTasksRepository(db),
    timers: timersRepository(db),
    messages: messagesRepository(db),
    incidents: incidentsRepository(db),
    history: historyRepository(db),
    statistics: statisticsRepository(db),
    commands: commandsRepository(db),
    requestKeys: requestKeysRepository(db),
    leases: leasesRepository(db),
    identity: identityRepository(db),
    login: loginRepository(db),
    accountSummary: accountSummaryRepository(db),
    agents: agentsRepository(db),
    mailbox: mailboxRepository(db),
    platformApps: platformAppsRepository(db),
    ledger: ledgerRepository(db),
    mailOutbox: mailOutboxRepository(db),
    webhooks: webhooksRepository(db),
    commitBatch: (batch: Batch) => commitBatch(writer, batch),
    commitBatches: (batches: readonly CommitInput[]) => commitBatches(writer, batches),
  };
}

export type Store = ReturnType<typeof createStore>;

export * from './accounts-repository.ts';
export * from './agents-repository.ts';
export * from './checksum.ts';
export * from './commands-repository.ts';
export * from './commit-batch.ts';
export * from './completed-tasks-repository.ts';
export * from './config.ts';
export * from './cursor.ts';
export * from './data-dir-lock.ts';
export * from './database.ts';
export type { WriterConnection } from './pg-pool.ts';
export type { Tx } from './statement.ts';
export * from './db.ts';
export * from './case-definitions-repository.ts';
export * from './case-instances-repository.ts';
export * from './decisions-repository.ts';
export * from './definitions-repository.ts';
export * from './engine-events.ts';
export * from './errors.ts';
export * from './history-repository.ts';
export * from './identity-repository.ts';
export * from './incidents-repository.ts';
export * from './instances-repository.ts';
export * from './jobs-repository.ts';
export * from './leases-repository.ts';
export * from './login-repository.ts';
export * from './account-summary-repository.ts';
export * from './ledger-repository.ts';
export * from './mail-outbox-repository.ts';
export * from './mailbox-repository.ts';
export * from './migrate.ts';
export * from './platform-apps-repository.ts';
export * from './request-keys-repository.ts';
export * from './runtime-rows.ts';
export * from './statistics-repository.ts';
export * from './tasks-repository.ts';
export * from './timers-repository.ts';
export * from './messages-repository.ts';
export * from './webhook-outbox.ts';
export * from './webhooks-repository.ts';
export * as schema from './schema.ts';
