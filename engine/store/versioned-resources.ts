// Deployed resources versioned per (account, resource id): BPMN processes
// (definitions-repository.ts) and DMN decisions (decisions-repository.ts).
// Each kind has a head table, one row per resource holding its latest
// version, and a versions table holding every version with its XML and
// checksum. Identical XML (same checksum) keeps its version (DESIGN §4);
// deploys of one resource serialise on its head row, so concurrent deploys
// neither skip nor duplicate a version. The repositories name the tables and
// columns and keep their own method names; the queries are these.
import { and, asc, eq, gt, is, sql } from 'drizzle-orm';
import { PgTransaction, type AnyPgColumn, type PgTable } from 'drizzle-orm/pg-core';
import { checksumOf, isChecksum } from './checksum.ts';
import { clampLimit, decodeCursor, toPage, type PageRequest } from './cursor.ts';
import type { Db } from './db.ts';
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
}

export interface DeployInput {
  id: string;
  resourceName: string;
  xml: string;
  /** sha256 of the XML, lower-case hex; computed when absent. */
  checksum?: string;
  /** Further columns of the version row, keyed as the table's rows are (a decision's name). */
  columns?: Record<string, unknown>;
}

export interface Deployed {
  id: string;
  version: number;
  checksum: string;
  /** False when this exact XML was already deployed (the existing version is returned). */
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

  /** Deploys several resources (one document) atomically; results in input order. */
  async function deploy(account: string, inputs: DeployInput[]): Promise<Deployed[]> {
    assertAccount(account);
    const prepared = inputs.map((input) => {
      const checksum = input.checksum ?? checksumOf(input.xml);
      if (!isChecksum(checksum)) throw new TypeError(`checksum of ${input.id} is not lower-case sha256 hex`);
      if (!input.id) throw new TypeError(`${idKey} is required`);
      return { ...input, checksum };
    });
    // Lock head rows in a fixed order so two multi-resource deploys cannot deadlock.
    const order = prepared.map((_, i) => i).sort((a, b) => (prepared[a].id < prepared[b].id ? -1 : 1));
    const deployAll = async (tx: Db) => {
      const results: Deployed[] = new Array(prepared.length);
      for (const i of order) results[i] = await deployOne(tx, account, prepared[i]);
      return results;
    };
    // Inside a caller's transaction (a keyed deploy) a savepoint would only add two round trips: any failure aborts the caller's transaction anyway.
    return is(db, PgTransaction) ? deployAll(db) : db.transaction(deployAll);
  }

  async function deployOne(tx: Db, account: string, input: DeployInput & { checksum: string }): Promise<Deployed> {
    const { id, checksum } = input;
    // Create-or-lock the head row; from here on, deploys of this resource wait for us.
    const [locked] = await tx
      .insert(heads)
      .values({ account, [idKey]: id, latestVersion: 0 })
      .onConflictDoUpdate({ target: [head.account, head.id], set: { latestVersion: sql`${head.latestVersion}` } })
      .returning({ latestVersion: head.latestVersion });
    // A head at version 0 was created just now: versions are written and removed with their head row, so it has none to match.
    if (locked.latestVersion > 0) {
      const [existing] = await tx
        .select({ version: version.version })
        .from(versions)
        .where(and(eq(version.account, account), eq(version.id, id), eq(version.checksum, checksum)));
      if (existing) return { id, version: existing.version, checksum, isNew: false };
    }
    const next = locked.latestVersion + 1;
    // The head's bump rides along with the version's insert (a data-modifying WITH runs whether or not it is referenced): one round trip.
    const bump = tx.$with('bump').as(
      tx
        .update(heads)
        .set({ latestVersion: next, updatedAt: sql`now()` })
        .where(and(eq(head.account, account), eq(head.id, id))),
    );
    await tx
      .with(bump)
      .insert(versions)
      .values({
        account,
        [idKey]: id,
        ...input.columns,
        version: next,
        resourceName: input.resourceName,
        xml: input.xml,
        checksum,
      });
    return { id, version: next, checksum, isNew: true };
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
