// Human tasks (SPEC.md Endpoints): the `userTask` jobs, listed and read,
// claimed, assigned and completed. Assignment is done here, never read from
// the model (SPEC.md). REST completion costs 1 credit; the logic is shared
// with GraphQL in services/tasks.ts.
import { z } from 'zod';
import { route } from '../openapi/route.ts';
import { keyedCommand, scopedKey } from '../services/idempotency.ts';
import { idSchema } from '../services/ids.ts';
import { keySchema } from '../services/keys.ts';
import { pageQuery, pageSchema } from '../services/pages.ts';
import { assignTask, claimTask, completeTask, getTask, listTasks } from '../services/tasks.ts';
import { variablesSchema } from '../services/variables.ts';
import type { RegisterRoutes } from './index.ts';

const TAGS = ['tasks'];

const assigneeSchema = idSchema;

export const taskSchema = z.object({
  id: z.string(),
  elementId: z.string(),
  elementInstanceKey: z.string(),
  processInstanceKey: z.string(),
  bpmnProcessId: z.string(),
  version: z.number().int(),
  assignee: z.string().nullable(),
  state: z.enum(['CREATED', 'FAILED']),
  customHeaders: z.record(z.string(), z.string()),
  createdAt: z.string(),
  variables: z.record(z.string(), z.unknown()).optional(),
  caseInstanceKey: z
    .string()
    .optional()
    .describe('A human task of a case (CMMN): its case instance, which processInstanceKey holds as well. Absent on a process task.'),
});

const idParams = z.object({ id: keySchema });

export const register: RegisterRoutes = async (app, ctx) => {
  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/tasks',
      summary: 'List human tasks, oldest first: open ones (CREATED) unless filter.state=FAILED.',
      tags: TAGS,
      auth: 'apiKey',
      query: z.object({
        'filter.state': z.enum(['CREATED', 'FAILED']).optional(),
        'filter.assignee': assigneeSchema.optional(),
        'filter.assigned': z.enum(['true', 'false']).optional().describe('true: only claimed or assigned tasks; false: only unassigned ones.'),
        'filter.processInstanceKey': keySchema.optional(),
        'filter.bpmnProcessId': idSchema.optional(),
        ...pageQuery,
      }),
      response: { status: 200, schema: pageSchema(taskSchema) },
      errors: [400, 401],
    },
    async ({ query }, request) =>
      listTasks(ctx, request.account, {
        state: query['filter.state'],
        assignee: query['filter.assignee'],
        assigned: query['filter.assigned'] === undefined ? undefined : query['filter.assigned'] === 'true',
        processInstanceKey: query['filter.processInstanceKey'],
        bpmnProcessId: query['filter.bpmnProcessId'],
        limit: query.limit,
        cursor: query.cursor,
      }),
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/tasks/:id',
      summary: 'One human task with the variables it sees.',
      tags: TAGS,
      auth: 'apiKey',
      params: idParams,
      response: { status: 200, schema: taskSchema },
      errors: [400, 401, 404],
    },
    async ({ params }, request) => getTask(ctx, request.account, params.id),
  );

  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/tasks/:id/claim',
      summary: 'Claim a task for `assignee` (default: the calling account). 409 when someone else holds it.',
      tags: TAGS,
      auth: 'apiKey',
      params: idParams,
      body: z.object({ assignee: assigneeSchema.optional() }),
      response: { status: 200, schema: taskSchema },
      errors: [400, 401, 404, 409],
    },
    async ({ params, body }, request) => claimTask(ctx, request.account, params.id, body.assignee ?? request.account),
  );

  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/tasks/:id/assign',
      summary: 'Assign a task to `assignee`, whoever held it; null returns it to the pool.',
      tags: TAGS,
      auth: 'apiKey',
      params: idParams,
      body: z.object({ assignee: assigneeSchema.nullable() }),
      response: { status: 200, schema: taskSchema },
      errors: [400, 401, 404],
    },
    async ({ params, body }, request) => assignTask(ctx, request.account, params.id, body.assignee),
  );

  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/tasks/:id/complete',
      summary:
        'Complete a human task, merging `variables` into the instance. Costs 1 credit (402, and nothing happens, without), refunded when the completion is refused or unanswered (503).',
      tags: TAGS,
      auth: 'apiKey',
      params: idParams,
      body: z.object({ variables: variablesSchema.optional() }),
      response: { status: 204, description: 'Completed.' },
      errors: [400, 401, 402, 404, 409],
      credits: 1,
      idempotent: true,
    },
    async ({ params, body, idempotency }, request, reply) => {
      // A task is a job: its completion's key is scoped to the job, as the job routes' are.
      const keyed = keyedCommand(idempotency, (key) => scopedKey.job(params.id, key));
      await completeTask(ctx, request.account, params.id, body.variables, { charge: true, keyed });
      return reply.code(204).send();
    },
  );
};
