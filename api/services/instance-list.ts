// Listing process instances as every interface does it (REST, MCP): newest
// first, by state, a root variable (`<name>:<value>`, how a client finds an
// instance by its own identifier, SPEC.md Events), process and version, start
// and end date ranges and parent instance; one page of summaries.
import { parseVariableFilter } from '../../engine/index.ts';
import type { ApiContext } from '../context.ts';
import { instanceSummary } from './instances.ts';
import { readPage } from './pages.ts';

export const INSTANCE_STATES = ['ACTIVE', 'COMPLETED', 'TERMINATED', 'INCIDENT'] as const;

export interface InstanceListFilter {
  state?: (typeof INSTANCE_STATES)[number];
  /** `<name>:<value>`, already checked with parseVariableFilter. */
  variable?: string;
  bpmnProcessId?: string;
  version?: number;
  /** RFC 3339 instants. */
  startedAfter?: string;
  startedBefore?: string;
  endedAfter?: string;
  endedBefore?: string;
  parentProcessInstanceKey?: string;
  limit?: number;
  cursor?: string;
}

function asDate(text: string | undefined): Date | undefined {
  return text === undefined ? undefined : new Date(text);
}

export async function listInstancePage(ctx: ApiContext, account: string, filter: InstanceListFilter) {
  const variable = filter.variable === undefined ? undefined : (parseVariableFilter(filter.variable) ?? undefined);
  const page = await readPage(() =>
    ctx.engine.store.instances.listInstances(account, {
      state: filter.state,
      bpmnProcessId: filter.bpmnProcessId,
      version: filter.version,
      variable,
      startedAfter: asDate(filter.startedAfter),
      startedBefore: asDate(filter.startedBefore),
      endedAfter: asDate(filter.endedAfter),
      endedBefore: asDate(filter.endedBefore),
      parentKey: filter.parentProcessInstanceKey,
      limit: filter.limit,
      cursor: filter.cursor,
    }),
  );
  return { items: page.items.map(instanceSummary), nextCursor: page.nextCursor };
}
