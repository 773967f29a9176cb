// Reads of CMMN case instances (their rows are written only by the partition
// leaders' batch statement): one case, a cursor-paged list newest first by
// (created_at, key) as process instances page, which of a set of keys are
// cases (the task list tells a case's human task from a process's by it),
// and the partition load a new leader does at takeover.
import { and, asc, desc, eq, gt, inArray, sql, type SQL } from 'drizzle-orm';
import type { CaseInstance } from '../cmmn/runtime/types.ts';
import type { InstanceState, Variables } from '../runtime/types.ts';
import { clampLimit, decodeCursor, isKey, toPage, type Page, type PageRequest } from './cursor.ts';
import type { Db } from './db.ts';
import { guarded } from './errors.ts';
import { decodeListPosition, isListPosition, listPosition } from './list-position.ts';
import { caseInstances } from './schema.ts';
import { assertAccount } from './tenancy.ts';

export interface CaseInstanceRecord {
  key: string;
  caseDefinitionId: string;
  version: number;
  state: InstanceState;
  variables: Variables;
  parentKey: string | null;
  createdAt: Date;
  updatedAt: Date;
  endedAt: Date | null;
  document: CaseInstance;
}

export interface CaseInstanceFilter extends PageRequest {
  state?: InstanceState;
  caseDefinitionId?: string;
}

export interface PartitionCase {
  account: string;
  parentKey: string | null;
  document: CaseInstance;
}

const columns = {
  key: caseInstances.key,
  caseDefinitionId: caseInstances.caseDefinitionId,
  version: caseInstances.version,
  state: caseInstances.state,
  variables: caseInstances.variables,
  parentKey: caseInstances.parentKey,
  createdAt: caseInstances.createdAt,
  updatedAt: caseInstances.updatedAt,
  endedAt: caseInstances.endedAt,
  document: caseInstances.document,
};

const LOAD_PAGE = 1000;

export function caseInstancesRepository(db: Db) {
  async function getCaseInstance(account: string, key: string): Promise<CaseInstanceRecord | null> {
    assertAccount(account);
    if (!isKey(key)) return null;
    const [row] = await db
      .select(columns)
      .from(caseInstances)
      .where(and(eq(caseInstances.account, account), eq(caseInstances.key, key)));
    return row ?? null;
  }

  async function listCaseInstances(account: string, filter: CaseInstanceFilter = {}): Promise<Page<CaseInstanceRecord>> {
    assertAccount(account);
    const limit = clampLimit(filter.limit);
    const conditions: (SQL | undefined)[] = [eq(caseInstances.account, account)];
    if (filter.state !== undefined) conditions.push(eq(caseInstances.state, filter.state));
    if (filter.caseDefinitionId !== undefined) conditions.push(eq(caseInstances.caseDefinitionId, filter.caseDefinitionId));
    if (filter.cursor) {
      const { at, key } = decodeListPosition(decodeCursor(filter.cursor, isListPosition));
      conditions.push(sql`(${caseInstances.createdAt}, ${caseInstances.key}) < (timestamptz 'epoch' + ${at}::int8 * interval '1 millisecond', ${key}::int8)`);
    }
    const fetched = await db
      .select(columns)
      .from(caseInstances)
      .where(and(...conditions))
      .orderBy(desc(caseInstances.createdAt), desc(caseInstances.key))
      .limit(limit + 1);
    return toPage(
      fetched,
      limit,
      (r) => listPosition(r.createdAt, r.key),
      (r) => r,
    );
  }

  /** Which of `keys` are case instances of the account. */
  async function caseKeys(account: string, keys: string[]): Promise<Set<string>> {
    assertAccount(account);
    const wanted = [...new Set(keys.filter(isKey))];
    if (wanted.length === 0) return new Set();
    const rows = await db
      .select({ key: caseInstances.key })
      .from(caseInstances)
      .where(and(eq(caseInstances.account, account), inArray(caseInstances.key, wanted)));
    return new Set(rows.map((r) => r.key));
  }

  /** The partition's live cases (ACTIVE or INCIDENT), every account's, for its new leader. */
  async function loadPartitionCases(partition: number): Promise<PartitionCase[]> {
    const out: PartitionCase[] = [];
    let after: string | null = null;
    for (;;) {
      const page: { account: string; parentKey: string | null; document: CaseInstance; key: string }[] = await db
        .select({ key: caseInstances.key, account: caseInstances.account, parentKey: caseInstances.parentKey, document: caseInstances.document })
        .from(caseInstances)
        .where(
          and(
            eq(caseInstances.partition, partition),
            inArray(caseInstances.state, ['ACTIVE', 'INCIDENT']),
            after === null ? undefined : gt(caseInstances.key, after),
          ),
        )
        .orderBy(asc(caseInstances.key))
        .limit(LOAD_PAGE);
      for (const row of page) out.push({ account: row.account, parentKey: row.parentKey, document: row.document });
      if (page.length < LOAD_PAGE) return out;
      after = page[page.length - 1].key;
    }
  }

  return guarded({ getCaseInstance, listCaseInstances, caseKeys, loadPartitionCases });
}
