// Deployed resources versioned per (account, resource id): BPMN processes
// (definitions-repository.ts) and DMN decisions (decisions-repository.ts).
// Each kind has a head table, one row per resource holding its latest
// version, and a versions table holding every version with its XML and
// checksum. XML identical to the latest version's (same checksum) keeps that
// version; anything else, an older version's XML too, becomes a new latest
// version (Zeebe's rule: deploying an old model again is a rollback that
// the next start runs). Deploys of one resource serialise on its head row,
// so concurrent deploys neither skip nor duplicate a version. The
// repositories name the tables and columns and keep their own method names;
// the queries are these.
import { and, asc, eq, getTableName, gt } from 'drizzle-orm';
import { type AnyPgColumn, type PgTable } from 'drizzle-orm/pg-core';
import { checksumOf, isChecksum } from './checksum.ts';
import { clampLimit, decodeCursor, toPage, type PageRequest } from './cursor.ts';
import type { Db } from './db.ts';
import { enqueueDeploymentEvent, SUBSCRIBED_TO_DEPLOYMENTS, type DeployedKind } from './deployment-events.ts';
import { transaction, type Statement, type Tx } from './statement.ts';
import { assertAccount } from './tenancy.ts';

type TextColumn = AnyPgColumn<{ data: string; notNull: true }>;
type VersionColumn = AnyPgColumn<{ data: number; notNull: true }>;

/** Columns of the versions table that describe a version, the version number among them. */
type SummaryColumns = Record<string, AnyPgColumn> & { version: VersionColumn };

// The columns the queries below use, by their property names; `Id` names the
// resource's id column in both tables.

/** One row per resource: the version counter its deploys lock. */
type HeadTable<Id extends string> = PgTable & { account: TextColumn; latestVersion: VersionColumn; updatedAt: AnyPgColumn } & Record<Id, TextColumn>;

/** One row per version of a resource. */
type VersionTable<Id extends string> = PgTable & {
  account: TextColumn;
  version: VersionColumn;
  resourceName: TextColumn;
  xml: TextColumn;
  checksum: TextColumn;
} & Record<Id, TextColumn>;

/** The tables of one kind of resource and the columns its summaries show. */
export interface VersionedTables<Id extends string, Summary extends SummaryColumns> {
  /** The id's property name in both tables (`bpmnProcessId`, `decisionId`). */
  idKey: Id;
  heads: HeadTable<Id>;
  versions: VersionTable<Id>;
  /** Columns of the versions table that describe a version, keyed as the repository's rows are. */
  summary: Summary;
  /** Further columns of the versions table a deploy writes, keyed as DeployInput.columns is (a decision's name). */
  extra?: Record<string, AnyPgColumn>;
  /** Keys of `extra` that, like the checksum, must match the latest version's for a redeploy to keep it (a process's deploy options). */
  compared?: string[];
  /** What the deployment.created webhook event calls these resources. */
  kind: DeployedKind;
}

export interface DeployInput {
  id: string;
  resourceName: string;
  xml: string;
  /** sha256 of the XML, lower-case hex; computed when absent. */
  checksum?: string;
  /** Values of the tables' `extra` columns, by their keys (a decision's name); null when absent. */
  columns?: Record<string, unknown>;
}

export interface Deployed {
  id: string;
  version: number;
  checksum: string;
  /** False when this exact XML is the latest version already (that version is returned). */
  isNew: boolean;
}

export interface RemoveOutcome {
  /** Versions removed (0: none was deployed, or removal was blocked). */
  removed: number;
  /** Why nothing was removed although versions exist. */
  blocked?: string;
}

export function versionedResources<Id extends string, Summary extends SummaryColumns>(db: Db, tables: VersionedTables<Id, Summary>) {
  const { idKey, summary } = tables;
  const head = { account: tables.heads.account, id: tables.heads[idKey], latestVersion: tables.heads.latestVersion };
  const version = {
    account: tables.versions.account,
    id: tables.versions[idKey],
    version: tables.versions.version,
    checksum: tables.versions.checksum,
    xml: tables.versions.xml,
  };
  // The queries take the tables as plain tables: drizzle cannot type rows for a
  // table that is only partly known, and the columns above are typed already.
  const heads: PgTable = tables.heads;
  const versions: PgTable = tables.versions;
  const latestJoin = and(eq(version.account, head.account), eq(version.id, head.id), eq(version.version, head.latestVersion));

  const statements = deployStatements(tables);

  /**
   * Deploys several resources (one document) atomically; results in input
   * order. Inside `tx` when given (a keyed deploy's), else in a transaction of its own.
   */
  async function deploy(account: string, inputs: DeployInput[], tx?: Tx): Promise<Deployed[]> {
    assertAccount(account);
    const prepared = inputs.map((input) => {
      const checksum = input.checksum ?? checksumOf(input.xml);
      if (!isChecksum(checksum)) throw new TypeError(`checksum of ${input.id} is not lower-case sha256 hex`);
      if (!input.id) throw new TypeError(`${idKey} is required`);
      return { ...input, checksum };
    });
    // Lock head rows in a fixed order so two multi-resource deploys cannot deadlock.
    const order = prepared.map((_, i) => i).sort((a, b) => (prepared[a].id < prepared[b].id ? -1 : 1));
    const deployAll = async (tx: Tx) => {
      const results: Deployed[] = new Array(prepared.length);
      const webhooks = { subscribed: false };
      for (const i of order) results[i] = await deployOne(tx, account, prepared[i], webhooks);
      // The statements that add a version said whether an endpoint wants to hear of it: no statement more when none does.
      if (webhooks.subscribed)
        await enqueueDeploymentEvent(
          tx,
          account,
          tables.kind,
          results.map((r, i) => ({ ...r, resourceName: prepared[i].resourceName })),
        );
      return results;
    };
    return tx ? deployAll(tx) : transaction(db, deployAll);
  }

  async function deployOne(tx: Tx, account: string, input: DeployInput & { checksum: string }, webhooks: { subscribed: boolean }): Promise<Deployed> {
    const { id, checksum } = input;
    const values = [account, id, checksum, input.resourceName, input.xml, ...statements.extra.map((key) => input.columns?.[key] ?? null)];
    // A resource deployed for the first time: its head and version 1 in one statement.
    const [created] = await tx.run<{ notify: boolean }>(statements.create, values);
    if (created) {
      webhooks.subscribed ||= created.notify;
      return { id, version: 1, checksum, isNew: true };
    }
    // It has a head (or one being created waited for). Lock it; from here on, deploys of this resource wait for us.
    await tx.run(statements.lock, [account, id]);
    // A statement of its own after the lock, so it sees what the deploy we may have waited for committed.
    const [written] = await tx.run<{ version: number; is_new: boolean; notify: boolean }>(statements.write, values);
    webhooks.subscribed ||= written.notify;
    return { id, version: written.version, checksum, isNew: written.is_new };
  }

  async function latest(account: string, id: string) {
    assertAccount(account);
    const [row] = await db
      .select({ ...summary, xml: version.xml })
      .from(heads)
      .innerJoin(versions, latestJoin)
      .where(and(eq(head.account, account), eq(head.id, id)));
    return row ?? null;
  }

  async function getVersion(account: string, id: string, number: number) {
    assertAccount(account);
    if (!Number.isSafeInteger(number)) return null;
    const [row] = await db
      .select({ ...summary, xml: version.xml })
      .from(versions)
      .where(and(eq(version.account, account), eq(version.id, id), eq(version.version, number)));
    return row ?? null;
  }

  /** Every version of one resource, oldest first. */
  async function listVersions(account: string, id: string) {
    assertAccount(account);
    // `version` again, the same column in the same place: drizzle types the rows
    // of a selection that is only a type parameter as any[] once it has both a
    // where and an orderBy; one named field keeps them typed.
    return db
      .select({ ...summary, version: version.version })
      .from(versions)
      .where(and(eq(version.account, account), eq(version.id, id)))
      .orderBy(asc(version.version));
  }

  /** The resources with their latest version, paged by id. */
  async function list(account: string, page: PageRequest = {}) {
    assertAccount(account);
    const limit = clampLimit(page.limit);
    const after = page.cursor ? decodeCursor(page.cursor) : null;
    const fetched = await db
      .select({ ...summary, latestVersion: head.latestVersion })
      .from(heads)
      .innerJoin(versions, latestJoin)
      .where(and(eq(head.account, account), after === null ? undefined : gt(head.id, after)))
      .orderBy(asc(head.id))
      .limit(limit + 1);
    // The summary holds the id under idKey: the cursor is the last id of the page.
    return toPage(
      fetched,
      limit,
      (row) => String(row[idKey as keyof typeof row]),
      (row) => row,
    );
  }

  /**
   * Removes every version of one resource and its head row, unless `blocked`
   * (run in the same transaction, after the head row is locked so no deploy
   * of this resource runs meanwhile) names a reason to keep it.
   */
  async function remove(account: string, id: string, blocked?: (tx: Db) => Promise<string | null>): Promise<RemoveOutcome> {
    assertAccount(account);
    return db.transaction(async (tx) => {
      const locked = await tx
        .select({ latestVersion: head.latestVersion })
        .from(heads)
        .where(and(eq(head.account, account), eq(head.id, id)))
        .for('update');
      if (locked.length === 0) return { removed: 0 };
      const reason = blocked ? await blocked(tx) : null;
      if (reason !== null) return { removed: 0, blocked: reason };
      const gone = await tx
        .delete(versions)
        .where(and(eq(version.account, account), eq(version.id, id)))
        .returning({ version: version.version });
      await tx.delete(heads).where(and(eq(head.account, account), eq(head.id, id)));
      return { removed: gone.length };
    });
  }

  return { deploy, latest, getVersion, listVersions, list, remove };
}

/**
 * A deploy's statements for one kind of resource, built once. `create`
 * inserts the head at version 1 and the version in one statement, or
 * nothing when the head exists: ON CONFLICT DO NOTHING waits for a head
 * another transaction is inserting, so two first deploys never both create
 * version 1. `lock` locks an existing head; `write`, run after it, answers the
 * latest version when it holds this checksum (and the same extra columns),
 * or bumps the head and inserts the next version. Parameters: account, id, checksum, resource name, XML, then the
 * extra columns.
 */
function deployStatements(tables: VersionedTables<string, SummaryColumns>) {
  const q = (name: string) => `"${name}"`;
  const heads = q(getTableName(tables.heads));
  const versions = q(getTableName(tables.versions));
  const id = q(tables.heads[tables.idKey].name);
  const versionId = q(tables.versions[tables.idKey].name);
  const extra = Object.keys(tables.extra ?? {});
  const extraColumns = extra.map((key) => `, ${q(tables.extra![key].name)}`).join('');
  const extraParams = extra.map((_, i) => `, $${6 + i}`).join('');
  // A redeploy keeps the latest version only when the extra columns match too (a process's deploy options).
  const extraMatch = extra
    .map((key, i) => (tables.compared?.includes(key) ? ` and v.${q(tables.extra![key].name)} is not distinct from $${6 + i}` : ''))
    .join('');
  const insertVersion = (from: string, version: string) =>
    `insert into ${versions} (account, ${versionId}, version, resource_name, xml, checksum${extraColumns})
     select $1, $2, ${version}, $4, $5, $3${extraParams} from ${from} returning version, ${SUBSCRIBED_TO_DEPLOYMENTS} as notify`;
  const name = getTableName(tables.versions);
  return {
    extra,
    create: {
      name: `deploy-create:${name}`,
      text: `with created as (
               insert into ${heads} (account, ${id}, latest_version) values ($1, $2, 1) on conflict (account, ${id}) do nothing returning 1
             ) ${insertVersion('created', '1')}`,
    } satisfies Statement,
    lock: { name: `deploy-lock:${name}`, text: `select 1 from ${heads} where account = $1 and ${id} = $2 for update` } satisfies Statement,
    write: {
      name: `deploy-write:${name}`,
      text: `with existing as (
               select v.version from ${heads} h join ${versions} v
                 on v.account = h.account and v.${versionId} = h.${id} and v.version = h.latest_version
               where h.account = $1 and h.${id} = $2 and v.checksum = $3${extraMatch}
             ), bumped as (
               update ${heads} set latest_version = latest_version + 1, updated_at = now()
               where account = $1 and ${id} = $2 and not exists (select 1 from existing) returning latest_version
             ), inserted as (
               ${insertVersion('bumped', 'bumped.latest_version')}
             )
             select version, false as is_new, false as notify from existing union all select version, true as is_new, notify from inserted`,
    } satisfies Statement,
  };
}
