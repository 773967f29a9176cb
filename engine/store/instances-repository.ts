// Reads of process instances: single lookups and filtered, cursor-paged lists
// for the API and console (DESIGN §4 "lists, console"), and the partition
// load a new leader does at takeover. Lists run newest first by (created_at,
// key) and page with `(created_at, key) < cursor`, which the (account, …,
// created_at, key) indexes serve directly (keys alone are not in start
// order: the partition is their top bits); `filter.variable` is a jsonb
// containment test served by the GIN index.
import { and, asc, desc, eq, gt, gte, inArray, lt, or, sql, type SQL } from 'drizzle-orm';
import type { InstanceState, ProcessInstance, Variables } from '../runtime/types.ts';
import { clampLimit, decodeCursor, isKey, toPage, type Page, type PageRequest } from './cursor.ts';
import { decodeListPosition, isListPosition, listPosition } from './list-position.ts';
import type { Db } from './db.ts';
import { guarded } from './errors.ts';
import { instances } from './schema.ts';
import { assertAccount } from './tenancy.ts';

export const INSTANCE_STATES: readonly InstanceState[] = ['ACTIVE', 'COMPLETED', 'TERMINATED', 'INCIDENT'];

export interface InstanceSummary {
  key: string;
  bpmnProcessId: string;
  version: number;
  state: InstanceState;
  /** Root-scope variables. */
  variables: Variables;
  parentKey: string | null;
  createdAt: Date;
  updatedAt: Date;
  endedAt: Date | null;
}

export interface InstanceRecord extends InstanceSummary {
  account: string;
  partition: number;
  document: ProcessInstance;
}

export interface InstanceFilter extends PageRequest {
  state?: InstanceState;
  bpmnProcessId?: string;
  /** Only with bpmnProcessId. */
  version?: number;
  /** `filter.variable=<name>:<value>`: the value as typed (see variableMatches). */
  variable?: { name: string; value: string };
  /** Started at or after / before (exclusive). */
  startedAfter?: Date;
  startedBefore?: Date;
  /** Ended at or after / before (exclusive); either leaves running instances out. */
  endedAfter?: Date;
  endedBefore?: Date;
  parentKey?: string;
}

export interface PartitionInstance {
  account: string;
  parentKey: string | null;
  document: ProcessInstance;
}

const summaryColumns = {
  key: instances.key,
  bpmnProcessId: instances.bpmnProcessId,
  version: instances.version,
  state: instances.state,
  variables: instances.variables,
  parentKey: instances.parentKey,
  createdAt: instances.createdAt,
  updatedAt: instances.updatedAt,
  endedAt: instances.endedAt,
};

// JSON's number grammar: only such text is spliced into the jsonb literal
// unquoted, and it still travels as a bound parameter, never as SQL.
const JSON_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

/**
 * The jsonb documents `variables @> …` should match for `name:value`. A
 * query string cannot say whether `42` meant the number or the string, so
 * both are tried; likewise `true`/`false`/`null`. Numbers keep their exact
 * text, so large or precise values compare as Postgres numerics.
 */
export function variableMatches(name: string, value: string): string[] {
  const field = JSON.stringify(name);
  const candidates = [`{${field}:${JSON.stringify(value)}}`];
  if (JSON_NUMBER.test(value) || value === 'true' || value === 'false' || value === 'null') {
    candidates.push(`{${field}:${value}}`);
  }
  return candidates;
}

/**
 * Splits `filter.variable=<name>:<value>` at the first colon, so values may
 * contain colons (`time:12:30`) but names may not. Null when malformed.
 */
export function parseVariableFilter(text: string): { name: string; value: string } | null {
  const colon = text.indexOf(':');
  if (colon <= 0) return null;
  return { name: text.slice(0, colon), value: text.slice(colon + 1) };
}

export function instancesRepository(db: Db) {
  async function getInstance(account: string, key: string): Promise<InstanceRecord | null> {
    assertAccount(account);
    if (!isKey(key)) return null;
    const [row] = await db
      .select({ ...summaryColumns, account: instances.account, partition: instances.partition, document: instances.document })
      .from(instances)
      .where(and(eq(instances.account, account), eq(instances.key, key)));
    return row ?? null;
  }

  async function listInstances(account: string, filter: InstanceFilter = {}): Promise<Page<InstanceSummary>> {
    assertAccount(account);
    const limit = clampLimit(filter.limit);
    const conditions: (SQL | undefined)[] = [eq(instances.account, account)];
    if (filter.state !== undefined) {
      if (!INSTANCE_STATES.includes(filter.state)) throw new TypeError(`unknown instance state ${String(filter.state)}`);
      conditions.push(eq(instances.state, filter.state));
    }
    if (filter.bpmnProcessId !== undefined) conditions.push(eq(instances.bpmnProcessId, filter.bpmnProcessId));
    if (filter.version !== undefined) conditions.push(eq(instances.version, filter.version));
    if (filter.variable !== undefined) {
      const { name, value } = filter.variable;
      conditions.push(or(...variableMatches(name, value).map((doc) => sql`${instances.variables} @> ${doc}::jsonb`)));
    }
    if (filter.startedAfter !== undefined) conditions.push(gte(instances.createdAt, filter.startedAfter));
    if (filter.startedBefore !== undefined) conditions.push(lt(instances.createdAt, filter.startedBefore));
    if (filter.endedAfter !== undefined) conditions.push(gte(instances.endedAt, filter.endedAfter));
    if (filter.endedBefore !== undefined) {
      // Implied (nothing ends before it starts), and it lets the newest-first
      // scan begin at that instant instead of filtering everything after it.
      conditions.push(lt(instances.endedAt, filter.endedBefore), lt(instances.createdAt, filter.endedBefore));
    }
    if (filter.parentKey !== undefined) {
      if (!isKey(filter.parentKey)) return { items: [], nextCursor: null };
      conditions.push(eq(instances.parentKey, filter.parentKey));
    }
    if (filter.cursor) {
      const { at, key } = decodeListPosition(decodeCursor(filter.cursor, isListPosition));
      // A row comparison, so the index range starts right after the cursor.
      conditions.push(sql`(${instances.createdAt}, ${instances.key}) < (timestamptz 'epoch' + ${at}::int8 * interval '1 millisecond', ${key}::int8)`);
    }
    const fetched = await db
      .select(summaryColumns)
      .from(instances)
      .where(and(...conditions))
      .orderBy(desc(instances.createdAt), desc(instances.key))
      .limit(limit + 1);
    return toPage(
      fetched,
      limit,
      (r) => listPosition(r.createdAt, r.key),
      (r) => r,
    );
  }

  /** Instances started by a call activity of `parentKey`. */
  async function listChildren(account: string, parentKey: string): Promise<InstanceSummary[]> {
    assertAccount(account);
    if (!isKey(parentKey)) return [];
    return db
      .select(summaryColumns)
      .from(instances)
      .where(and(eq(instances.account, account), eq(instances.parentKey, parentKey)))
      .orderBy(asc(instances.key));
  }

  /**
   * Every instance of a partition, for its new leader (all accounts: the
   * leader serves the partition, not a tenant). `activeOnly` keeps the ones
   * still alive: ACTIVE, and INCIDENT (stuck, but its tokens and timers remain).
   */
  async function loadPartitionInstances(partition: number, options: { activeOnly?: boolean } = {}): Promise<PartitionInstance[]> {
    const out: PartitionInstance[] = [];
    let after: string | null = null;
    // Page through by key so one huge partition is not one huge result set.
    for (;;) {
      const page: { key: string; account: string; parentKey: string | null; document: ProcessInstance }[] = await db
        .select({ key: instances.key, account: instances.account, parentKey: instances.parentKey, document: instances.document })
        .from(instances)
        .where(
          and(
            eq(instances.partition, partition),
            options.activeOnly ? inArray(instances.state, ['ACTIVE', 'INCIDENT']) : undefined,
            after === null ? undefined : gt(instances.key, after),
          ),
        )
        .orderBy(asc(instances.key))
        .limit(LOAD_PAGE);
      for (const row of page) out.push({ account: row.account, parentKey: row.parentKey, document: row.document });
      if (page.length < LOAD_PAGE) return out;
      after = page[page.length - 1].key;
    }
  }

  return guarded({ getInstance, listInstances, listChildren, loadPartitionInstances });
}

const LOAD_PAGE = 1000;
