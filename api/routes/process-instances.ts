// Process instances (SPEC.md Endpoints): starting one costs 1 credit, charged
// before the start and refunded when the start is refused or gets no answer
// in time, and not charged again when an Idempotency-Key replays it; listing
// runs newest first and filters by `filter.state`, `filter.variable=<name>:<value>`
// (how a client finds an instance by its own identifier, SPEC.md Events),
// process and version, start and end date ranges and parent instance. The
// console's reads of one instance (per-element statistics, element history)
// are here too. Cancelling is an extension (DESIGN §6).
import { z } from 'zod';
import { parseVariableFilter } from '../../engine/index.ts';
import { route } from '../openapi/route.ts';
import { ApiError } from '../problem.ts';
import { keyedCommand, scopedKey } from '../services/idempotency.ts';
import { INSTANCE_STATES, listInstancePage } from '../services/instance-list.ts';
import { getInstanceDetail } from '../services/instances.ts';
import { idSchema } from '../services/ids.ts';
import { keySchema } from '../services/keys.ts';
import { pageQuery, pageSchema, readPage } from '../services/pages.ts';
import { startChargedInstance } from '../services/start-instance.ts';
import { instanceStatisticsSchema } from '../services/statistics.ts';
import { variablesSchema } from '../services/variables.ts';
import type { RegisterRoutes } from './index.ts';

const TAGS = ['process-instances'];
const STATES = INSTANCE_STATES;

const keyParams = z.object({ key: keySchema });

const startBody = z.object({
  bpmnProcessId: idSchema.describe('The BPMN process id of a deployed process; its latest version starts.'),
  variables: variablesSchema.optional(),
});

export const startedSchema = z.object({ processInstanceKey: z.string(), bpmnProcessId: z.string(), version: z.number().int(), state: z.string() });

const instant = (what: string) =>
  z.iso.datetime({ offset: true, message: 'must be an RFC 3339 date-time with a time zone, e.g. 2026-01-31T09:00:00Z' }).optional().describe(what);

const listQuery = z
  .object({
    'filter.state': z.enum(STATES).optional(),
    'filter.variable': z
      .string()
      .max(10_000)
      .refine((text) => parseVariableFilter(text) !== null, 'must be <name>:<value>, with a non-empty name')
      .optional(),
    'filter.bpmnProcessId': idSchema.optional(),
    'filter.version': z.coerce.number().int().min(1).max(2_147_483_647).optional().describe('A version of filter.bpmnProcessId (which it requires).'),
    'filter.startedAfter': instant('Started at or after this instant (RFC 3339).'),
    'filter.startedBefore': instant('Started before this instant (RFC 3339).'),
    'filter.endedAfter': instant('Ended at or after this instant (RFC 3339); leaves running instances out.'),
    'filter.endedBefore': instant('Ended before this instant (RFC 3339); leaves running instances out.'),
    'filter.parentProcessInstanceKey': keySchema.optional().describe('Instances started by a call activity of this instance.'),
    ...pageQuery,
  })
  .superRefine((q, issues) => {
    if (q['filter.version'] !== undefined && q['filter.bpmnProcessId'] === undefined) {
      issues.addIssue({ code: 'custom', path: ['filter.version'], message: 'needs filter.bpmnProcessId: versions are numbered per process' });
    }
  });

const historyItemSchema = z.object({
  elementInstanceKey: z.string(),
  elementId: z.string(),
  elementType: z.string().describe('The BPMN element type as the model compiler names it, e.g. serviceTask, exclusiveGateway, callActivity.'),
  state: z
    .enum(['ACTIVE', 'COMPLETED', 'TERMINATED', 'INCIDENT'])
    .describe('ACTIVE: alive; COMPLETED: left normally; TERMINATED: ended by a cancel or an interrupting event; INCIDENT: stuck on an incident.'),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  flowScopeKey: z.string().describe('The element instance of the enclosing subprocess (or multi-instance body), or the process instance key.'),
  calledProcessInstanceKey: z.string().optional().describe('Call activities: the instance they started.'),
});

export const instanceSummarySchema = z.object({
  processInstanceKey: z.string(),
  bpmnProcessId: z.string(),
  version: z.number().int(),
  state: z.enum(STATES),
  variables: z.record(z.string(), z.unknown()),
  parentProcessInstanceKey: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  endedAt: z.string().nullable(),
});

export const instanceDetailSchema = instanceSummarySchema.extend({
  activeElements: z.array(
    z.object({
      elementInstanceKey: z.string(),
      elementId: z.string(),
      flowScopeKey: z.string(),
      jobKey: z.string().nullable(),
      incidentKey: z.string().nullable(),
    }),
  ),
  jobs: z.array(z.object({ key: z.string(), type: z.string(), elementId: z.string(), retries: z.number().int(), state: z.string() })),
  incidents: z.array(z.record(z.string(), z.unknown())),
});

function notFound(key: string): ApiError {
  return new ApiError('NOT_FOUND', `Process instance '${key}' not found.`);
}

export const register: RegisterRoutes = async (app, ctx) => {
  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/process-instances',
      summary:
        'Start an instance of the latest version of a deployed process. Costs 1 credit, refunded when the start is refused or unanswered (503). ' +
        'Variables are held to the limits in docs/api.md (NUL and lone surrogates refused, nesting, count, size).',
      tags: TAGS,
      auth: 'apiKey',
      body: startBody,
      response: { status: 201, schema: startedSchema },
      errors: [400, 401, 402, 404, 503],
      credits: 1,
      idempotent: true,
    },
    async ({ body, idempotency }, request) =>
      startChargedInstance(ctx, request.account, body.bpmnProcessId, body.variables ?? {}, keyedCommand(idempotency, scopedKey.start)),
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/process-instances',
      summary:
        'List instances, newest first, filtered by state, by a root variable (filter.variable=<name>:<value>), by process and version, ' +
        'by start or end date ranges (RFC 3339) or by parent instance.',
      tags: TAGS,
      auth: 'apiKey',
      query: listQuery,
      response: { status: 200, schema: pageSchema(instanceSummarySchema) },
      errors: [400, 401],
    },
    async ({ query }, request) =>
      listInstancePage(ctx, request.account, {
        state: query['filter.state'],
        variable: query['filter.variable'],
        bpmnProcessId: query['filter.bpmnProcessId'],
        version: query['filter.version'],
        startedAfter: query['filter.startedAfter'],
        startedBefore: query['filter.startedBefore'],
        endedAfter: query['filter.endedAfter'],
        endedBefore: query['filter.endedBefore'],
        parentProcessInstanceKey: query['filter.parentProcessInstanceKey'],
        limit: query.limit,
        cursor: query.cursor,
      }),
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/process-instances/:key',
      summary: 'One instance: state, root variables, live elements, jobs and incidents.',
      tags: TAGS,
      auth: 'apiKey',
      params: keyParams,
      response: {
        status: 200,
        schema: instanceDetailSchema,
      },
      errors: [400, 401, 404],
    },
    async ({ params }, request) => getInstanceDetail(ctx, request.account, params.key),
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/process-instances/:key/statistics',
      summary:
        'Per-element counts of one instance (active, incidents, completed, canceled by element id) and how often each sequence flow was taken: ' +
        'what the console marks on the diagram.',
      tags: TAGS,
      auth: 'apiKey',
      params: keyParams,
      response: { status: 200, schema: instanceStatisticsSchema },
      errors: [400, 401, 404],
      extension: true,
    },
    async ({ params }, request) => {
      const instance = await ctx.engine.store.instances.getInstance(request.account, params.key);
      if (instance === null) throw notFound(params.key);
      const stats = await ctx.engine.store.statistics.instanceStatistics(request.account, instance.document);
      return { processInstanceKey: instance.key, ...stats };
    },
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/process-instances/:key/variable-changes',
      summary:
        'Which variables each job or task completion of the instance set, by name, in the order they happened. ' +
        'Values are not recorded: the instance read has the current ones.',
      tags: TAGS,
      auth: 'apiKey',
      params: keyParams,
      query: z.object(pageQuery),
      response: {
        status: 200,
        schema: pageSchema(
          z.object({
            at: z.string(),
            elementId: z.string(),
            elementInstanceKey: z.string(),
            jobKey: z.string(),
            variables: z.array(z.string()).describe('The names of the variables the completion set.'),
          }),
        ),
      },
      errors: [400, 401, 404],
      extension: true,
    },
    async ({ params, query }, request) => {
      const instance = await ctx.engine.store.instances.getInstance(request.account, params.key);
      if (instance === null) throw notFound(params.key);
      const page = await readPage(() => ctx.engine.store.history.listVariableChanges(request.account, params.key, query));
      return {
        items: page.items.map((c) => ({
          at: c.at.toISOString(),
          elementId: c.elementId,
          elementInstanceKey: c.elementInstanceKey,
          jobKey: c.jobKey,
          variables: c.names,
        })),
        nextCursor: page.nextCursor,
      };
    },
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/process-instances/:key/history',
      summary: "The instance's element instances in the order they started: element, type, state, start and end, flow scope, called instance.",
      tags: TAGS,
      auth: 'apiKey',
      params: keyParams,
      query: z.object(pageQuery),
      response: { status: 200, schema: pageSchema(historyItemSchema) },
      errors: [400, 401, 404],
      extension: true,
    },
    async ({ params, query }, request) => {
      const instance = await ctx.engine.store.instances.getInstance(request.account, params.key);
      if (instance === null) throw notFound(params.key);
      const page = await readPage(() => ctx.engine.store.history.listElementInstances(request.account, params.key, query));
      return {
        items: page.items.map((e) => ({
          elementInstanceKey: e.elementInstanceKey,
          elementId: e.elementId,
          elementType: e.elementType,
          state: e.state,
          startedAt: e.startedAt.toISOString(),
          endedAt: e.endedAt?.toISOString() ?? null,
          flowScopeKey: e.flowScopeKey,
          ...(e.calledProcessInstanceKey === null ? {} : { calledProcessInstanceKey: e.calledProcessInstanceKey }),
        })),
        nextCursor: page.nextCursor,
      };
    },
  );

  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/process-instances/:key/cancel',
      summary: 'Cancel an ACTIVE instance: its jobs and timers are withdrawn and it becomes TERMINATED. An instance in INCIDENT stays INCIDENT (SPEC.md).',
      tags: TAGS,
      auth: 'apiKey',
      params: keyParams,
      response: { status: 204, description: 'Cancelled.' },
      errors: [400, 401, 404, 409],
      extension: true,
    },
    async ({ params }, request, reply) => {
      const instance = await ctx.engine.store.instances.getInstance(request.account, params.key);
      if (instance === null) throw notFound(params.key);
      if (instance.state !== 'ACTIVE') {
        throw new ApiError('CONFLICT', `Process instance '${params.key}' is ${instance.state}; only an ACTIVE instance can be cancelled.`, {
          state: instance.state,
        });
      }
      await ctx.engine.cancelInstance(request.account, params.key);
      return reply.code(204).send();
    },
  );
};
