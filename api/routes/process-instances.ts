// Process instances (SPEC.md Endpoints): starting one costs 1 credit, charged
// before the start and refunded when the start is refused; listing filters
// by `filter.state`, `filter.variable=<name>:<value>` (how a client finds an
// instance by its own identifier, SPEC.md Events) and `filter.bpmnProcessId`.
// Cancelling is an extension (DESIGN §6).
import { z } from 'zod';
import { EngineError } from '../../engine/partition/index.ts';
import { parseVariableFilter } from '../../engine/store/index.ts';
import { route } from '../openapi/route.ts';
import { ApiError } from '../problem.ts';
import { instanceDetail, instanceSummary } from '../services/instances.ts';
import { keySchema } from '../services/keys.ts';
import { pageQuery, pageSchema, readPage } from '../services/pages.ts';
import { variablesSchema } from '../services/variables.ts';
import type { RegisterRoutes } from './index.ts';

const TAGS = ['process-instances'];
const STATES = ['ACTIVE', 'COMPLETED', 'TERMINATED', 'INCIDENT'] as const;

const keyParams = z.object({ key: keySchema });

const startBody = z.object({
  bpmnProcessId: z.string().min(1).max(255).describe('The BPMN process id of a deployed process; its latest version starts.'),
  variables: variablesSchema.optional(),
});

const startedSchema = z.object({ processInstanceKey: z.string(), bpmnProcessId: z.string(), version: z.number().int(), state: z.string() });

const listQuery = z.object({
  'filter.state': z.enum(STATES).optional(),
  'filter.variable': z
    .string()
    .max(10_000)
    .refine((text) => parseVariableFilter(text) !== null, 'must be <name>:<value>, with a non-empty name')
    .optional(),
  'filter.bpmnProcessId': z.string().min(1).max(255).optional(),
  ...pageQuery,
});

const summarySchema = z.object({
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

function notFound(key: string): ApiError {
  return new ApiError('NOT_FOUND', `Process instance '${key}' not found.`);
}

export const register: RegisterRoutes = async (app, ctx) => {
  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/process-instances',
      summary: 'Start an instance of the latest version of a deployed process. Costs 1 credit.',
      tags: TAGS,
      auth: 'apiKey',
      body: startBody,
      response: { status: 201, schema: startedSchema },
      errors: [400, 401, 402, 404, 503],
      credits: 1,
    },
    async ({ body }, request) => {
      const undo = await ctx.credits.charge(request.account, 1, 'process-instance-start', body.bpmnProcessId);
      try {
        return await ctx.engine.startInstance(request.account, body.bpmnProcessId, body.variables ?? {});
      } catch (err) {
        // After a timeout the start is still queued for the leader and will run: keep the charge.
        if (!(err instanceof EngineError && err.code === 'TIMEOUT')) await undo();
        throw err;
      }
    },
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/process-instances',
      summary: 'List instances, oldest first, filtered by state, by a root variable (filter.variable=<name>:<value>) or by process.',
      tags: TAGS,
      auth: 'apiKey',
      query: listQuery,
      response: { status: 200, schema: pageSchema(summarySchema) },
      errors: [400, 401],
    },
    async ({ query }, request) => {
      const variable = query['filter.variable'] === undefined ? undefined : (parseVariableFilter(query['filter.variable']) ?? undefined);
      const page = await readPage(() =>
        ctx.engine.store.instances.listInstances(request.account, {
          state: query['filter.state'],
          bpmnProcessId: query['filter.bpmnProcessId'],
          variable,
          limit: query.limit,
          cursor: query.cursor,
        }),
      );
      return { items: page.items.map(instanceSummary), nextCursor: page.nextCursor };
    },
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
        schema: summarySchema.extend({
          activeElements: z.array(z.object({ elementInstanceKey: z.string(), elementId: z.string(), flowScopeKey: z.string(), jobKey: z.string().nullable(), incidentKey: z.string().nullable() })),
          jobs: z.array(z.object({ key: z.string(), type: z.string(), elementId: z.string(), retries: z.number().int(), state: z.string() })),
          incidents: z.array(z.record(z.string(), z.unknown())),
        }),
      },
      errors: [400, 401, 404],
    },
    async ({ params }, request) => {
      const instance = await ctx.engine.store.instances.getInstance(request.account, params.key);
      if (instance === null) throw notFound(params.key);
      const incidents = await ctx.engine.store.incidents.listIncidents(request.account, { instanceKey: params.key, limit: 1000 });
      return instanceDetail(instance, incidents.items);
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
        throw new ApiError('CONFLICT', `Process instance '${params.key}' is ${instance.state}; only an ACTIVE instance can be cancelled.`, { state: instance.state });
      }
      await ctx.engine.cancelInstance(request.account, params.key);
      return reply.code(204).send();
    },
  );
};
