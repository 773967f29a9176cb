// Completed human tasks (an extension, DESIGN §6, tagged `extension`):
// SPEC.md's task routes know only open tasks, so completed ones have routes
// of their own, newest first, with who held each and when it was completed.
// A client that never asks sees exactly SPEC.md's behaviour.
import { z } from 'zod';
import { route } from '../openapi/route.ts';
import { getCompletedTask, listCompletedTasks } from '../services/completed-tasks.ts';
import { idSchema } from '../services/ids.ts';
import { keySchema } from '../services/keys.ts';
import { pageQuery, pageSchema } from '../services/pages.ts';
import type { RegisterRoutes } from './index.ts';

const TAGS = ['tasks'];

const completedTaskSchema = z.object({
  id: z.string(),
  elementId: z.string(),
  elementInstanceKey: z.string(),
  processInstanceKey: z.string(),
  bpmnProcessId: z.string(),
  version: z.number().int(),
  assignee: z.string().nullable().describe('Who held the task when it was completed; null when nobody did.'),
  state: z.enum(['COMPLETED']),
  createdAt: z.string(),
  completedAt: z.string(),
});

export const register: RegisterRoutes = async (app, ctx) => {
  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/completed-tasks',
      summary: 'List completed human tasks, newest first, with who held each and when it was completed.',
      tags: TAGS,
      auth: 'apiKey',
      query: z.object({
        'filter.assignee': idSchema.optional(),
        'filter.processInstanceKey': keySchema.optional(),
        ...pageQuery,
      }),
      response: { status: 200, schema: pageSchema(completedTaskSchema) },
      errors: [400, 401],
      extension: true,
    },
    async ({ query }, request) =>
      listCompletedTasks(ctx, request.account, {
        assignee: query['filter.assignee'],
        processInstanceKey: query['filter.processInstanceKey'],
        limit: query.limit,
        cursor: query.cursor,
      }),
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/completed-tasks/:id',
      summary: 'One completed human task; 404 while it is open (GET /api/v1/tasks/{id}) or when there is none.',
      tags: TAGS,
      auth: 'apiKey',
      params: z.object({ id: keySchema }),
      response: { status: 200, schema: completedTaskSchema },
      errors: [400, 401, 404],
      extension: true,
    },
    async ({ params }, request) => getCompletedTask(ctx, request.account, params.id),
  );
};
