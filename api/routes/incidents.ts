// Incidents (SPEC.md Endpoints, States and transitions): listing and reading
// them, and PATCH, which closes the incident record only. The instance stays
// INCIDENT: it cannot be resumed over REST; the remedy is to fix the cause
// and start a new instance.
import { z } from 'zod';
import { route } from '../openapi/route.ts';
import { ApiError } from '../problem.ts';
import { idSchema } from '../services/ids.ts';
import { incidentView } from '../services/instances.ts';
import { keySchema } from '../services/keys.ts';
import { pageQuery, pageSchema, readPage } from '../services/pages.ts';
import type { RegisterRoutes } from './index.ts';

const TAGS = ['incidents'];

export const incidentSchema = z.object({
  id: z.string(),
  processInstanceKey: z.string(),
  bpmnProcessId: z.string(),
  elementId: z.string(),
  elementInstanceKey: z.string(),
  jobKey: z.string().nullable(),
  type: z.string(),
  message: z.string(),
  state: z.enum(['OPEN', 'RESOLVED']),
  createdAt: z.string(),
  resolvedAt: z.string().nullable(),
});

const idParams = z.object({ id: keySchema });

function notFound(id: string): ApiError {
  return new ApiError('NOT_FOUND', `Incident '${id}' not found.`);
}

export const register: RegisterRoutes = async (app, ctx) => {
  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/incidents',
      summary: 'List incidents in key order, optionally by state (OPEN, RESOLVED), process instance or process (filter.bpmnProcessId).',
      tags: TAGS,
      auth: 'apiKey',
      query: z.object({
        'filter.state': z.enum(['OPEN', 'RESOLVED']).optional(),
        'filter.processInstanceKey': keySchema.optional(),
        'filter.bpmnProcessId': idSchema.optional(),
        ...pageQuery,
      }),
      response: { status: 200, schema: pageSchema(incidentSchema) },
      errors: [400, 401],
    },
    async ({ query }, request) => {
      const page = await readPage(() =>
        ctx.engine.store.incidents.listIncidents(request.account, {
          state: query['filter.state'],
          instanceKey: query['filter.processInstanceKey'],
          bpmnProcessId: query['filter.bpmnProcessId'],
          limit: query.limit,
          cursor: query.cursor,
        }),
      );
      return { items: page.items.map(incidentView), nextCursor: page.nextCursor };
    },
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/incidents/:id',
      summary: 'One incident.',
      tags: TAGS,
      auth: 'apiKey',
      params: idParams,
      response: { status: 200, schema: incidentSchema },
      errors: [400, 401, 404],
    },
    async ({ params }, request) => {
      const incident = await ctx.engine.store.incidents.getIncident(request.account, params.id);
      if (incident === null) throw notFound(params.id);
      return incidentView(incident);
    },
  );

  route(
    app,
    {
      method: 'PATCH',
      path: '/api/v1/incidents/:id',
      summary: 'Close the incident record (idempotent). Only the record is closed: the instance stays INCIDENT.',
      tags: TAGS,
      auth: 'apiKey',
      params: idParams,
      response: { status: 200, schema: incidentSchema },
      errors: [400, 401, 404],
    },
    async ({ params }, request) => {
      const outcome = await ctx.engine.store.incidents.resolveIncident(request.account, params.id);
      if (outcome === null) throw notFound(params.id);
      return incidentView(outcome.incident);
    },
  );
};
