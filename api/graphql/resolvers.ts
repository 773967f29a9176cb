// What the GraphQL fields do. Every read and the one write go through the
// same services and store queries as REST, always with the account the auth
// hook put in the context, so another account's data can never appear.
// completeTask calls the shared task completion with charge: false — the only
// difference from REST (SPEC.md: GraphQL completeTask is free).
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { IncidentRecord, InstanceSummary } from '../../engine/index.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../problem.ts';
import { caseDetail, caseSummary } from '../services/case-instances.ts';
import { incidentView, instanceSummary } from '../services/instances.ts';
import { idSchema } from '../services/ids.ts';
import { keySchema } from '../services/keys.ts';
import { completeTask, getTask, listTasks, type TaskView } from '../services/tasks.ts';
import { variablesSchema } from '../services/variables.ts';
import { parseArgs, toGraphqlError } from './errors.ts';

/** What each resolver gets: set per request by the route in routes/graphql.ts. */
export interface GraphqlContext {
  /** The authenticated account (request.account). */
  account: string;
  api: ApiContext;
  /** Added by mercurius. */
  reply: FastifyReply;
}

type InstanceView = ReturnType<typeof instanceSummary>;
type IncidentView = ReturnType<typeof incidentView>;

const limit = z.number().int().min(1).max(1000).nullish();
const cursor = z.string().min(1).max(512).nullish();
const key = keySchema;

const tasksArgs = z.object({
  state: z.enum(['CREATED', 'FAILED']).nullish(),
  assignee: idSchema.nullish(),
  processInstanceKey: key.nullish(),
  bpmnProcessId: idSchema.nullish(),
  limit,
  cursor,
});
const instancesArgs = z.object({
  state: z.enum(['ACTIVE', 'COMPLETED', 'TERMINATED', 'INCIDENT']).nullish(),
  bpmnProcessId: idSchema.nullish(),
  limit,
  cursor,
});
const caseInstancesArgs = z.object({
  state: z.enum(['ACTIVE', 'COMPLETED', 'TERMINATED', 'INCIDENT']).nullish(),
  caseDefinitionId: idSchema.nullish(),
  limit,
  cursor,
});
const incidentsArgs = z.object({ state: z.enum(['OPEN', 'RESOLVED']).nullish(), processInstanceKey: key.nullish(), limit, cursor });
const completeArgs = z.object({ id: key, variables: variablesSchema.nullish() });

const orUndefined = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

/** The account of this request; a request without one never got past the auth hook, but never trust that twice. */
function accountOf(ctx: GraphqlContext): string {
  if (typeof ctx.account !== 'string' || ctx.account === '') throw new ApiError('UNAUTHENTICATED', 'No authenticated account for this GraphQL request.');
  return ctx.account;
}

/** Wraps a resolver so every failure becomes a GraphQL error with extensions.code. */
function resolver<P, A, R>(fn: (parent: P, args: A, ctx: GraphqlContext, account: string) => Promise<R>) {
  return async (parent: P, args: A, ctx: GraphqlContext): Promise<R> => {
    try {
      return await fn(parent, args, ctx, accountOf(ctx));
    } catch (error) {
      throw toGraphqlError(error, ctx.reply.log);
    }
  };
}

async function instanceByKey(ctx: GraphqlContext, account: string, instanceKey: string): Promise<InstanceView | null> {
  const instance: InstanceSummary | null = await ctx.api.engine.store.instances.getInstance(account, instanceKey);
  return instance === null ? null : instanceSummary(instance);
}

export const resolvers = {
  Query: {
    tasks: resolver(async (_parent: unknown, args: unknown, ctx, account) => {
      const a = parseArgs(tasksArgs, args);
      return listTasks(ctx.api, account, {
        state: orUndefined(a.state),
        assignee: orUndefined(a.assignee),
        processInstanceKey: orUndefined(a.processInstanceKey),
        bpmnProcessId: orUndefined(a.bpmnProcessId),
        limit: orUndefined(a.limit),
        cursor: orUndefined(a.cursor),
      });
    }),

    task: resolver(async (_parent: unknown, args: unknown, ctx, account) => {
      const { id } = parseArgs(z.object({ id: key }), args);
      return getTask(ctx.api, account, id);
    }),

    processInstances: resolver(async (_parent: unknown, args: unknown, ctx, account) => {
      const a = parseArgs(instancesArgs, args);
      const page = await ctx.api.engine.store.instances.listInstances(account, {
        state: orUndefined(a.state),
        bpmnProcessId: orUndefined(a.bpmnProcessId),
        limit: orUndefined(a.limit),
        cursor: orUndefined(a.cursor),
      });
      return { items: page.items.map(instanceSummary), nextCursor: page.nextCursor };
    }),

    processInstance: resolver(async (_parent: unknown, args: unknown, ctx, account) => {
      const { key: instanceKey } = parseArgs(z.object({ key }), args);
      const instance = await instanceByKey(ctx, account, instanceKey);
      if (instance === null) throw new ApiError('NOT_FOUND', `Process instance '${instanceKey}' not found.`);
      return instance;
    }),

    incidents: resolver(async (_parent: unknown, args: unknown, ctx, account) => {
      const a = parseArgs(incidentsArgs, args);
      const page = await ctx.api.engine.store.incidents.listIncidents(account, {
        state: orUndefined(a.state),
        instanceKey: orUndefined(a.processInstanceKey),
        limit: orUndefined(a.limit),
        cursor: orUndefined(a.cursor),
      });
      return { items: page.items.map(incidentView), nextCursor: page.nextCursor };
    }),

    caseInstances: resolver(async (_parent: unknown, args: unknown, ctx, account) => {
      const a = parseArgs(caseInstancesArgs, args);
      const page = await ctx.api.engine.store.caseInstances.listCaseInstances(account, {
        state: orUndefined(a.state),
        caseDefinitionId: orUndefined(a.caseDefinitionId),
        limit: orUndefined(a.limit),
        cursor: orUndefined(a.cursor),
      });
      // A list item's plan items are read from the same row: the document is in it.
      return { items: page.items.map(caseDetail), nextCursor: page.nextCursor };
    }),

    caseInstance: resolver(async (_parent: unknown, args: unknown, ctx, account) => {
      const { key: caseKey } = parseArgs(z.object({ key }), args);
      const row = await ctx.api.engine.store.caseInstances.getCaseInstance(account, caseKey);
      if (row === null) throw new ApiError('NOT_FOUND', `Case instance '${caseKey}' not found.`);
      return caseDetail(row);
    }),
  },

  Mutation: {
    completeTask: resolver(async (_parent: unknown, args: unknown, ctx, account) => {
      const { id, variables } = parseArgs(completeArgs, args);
      await completeTask(ctx.api, account, id, orUndefined(variables), { charge: false });
      return { id, completed: true };
    }),
  },

  Task: {
    // List items come without variables (as over REST); read them only when asked for.
    variables: resolver(async (task: TaskView, _args: unknown, ctx, account) => task.variables ?? (await getTask(ctx.api, account, task.id)).variables ?? {}),
    processInstance: resolver(async (task: TaskView, _args: unknown, ctx, account) => instanceByKey(ctx, account, task.processInstanceKey)),
  },

  ProcessInstance: {
    incidents: resolver(async (instance: InstanceView, _args: unknown, ctx, account) => {
      const page = await ctx.api.engine.store.incidents.listIncidents(account, { instanceKey: instance.processInstanceKey, limit: 1000 });
      return page.items.map((i: IncidentRecord) => incidentView(i));
    }),
    tasks: resolver(async (instance: InstanceView, _args: unknown, ctx, account) => {
      const page = await listTasks(ctx.api, account, { processInstanceKey: instance.processInstanceKey, limit: 1000 });
      return page.items;
    }),
  },

  CaseInstance: {
    tasks: resolver(async (instance: ReturnType<typeof caseSummary>, _args: unknown, ctx, account) => {
      const page = await listTasks(ctx.api, account, { processInstanceKey: instance.caseInstanceKey, limit: 1000 });
      return page.items;
    }),
  },

  Incident: {
    processInstance: resolver(async (incident: IncidentView, _args: unknown, ctx, account) => instanceByKey(ctx, account, incident.processInstanceKey)),
  },
};
