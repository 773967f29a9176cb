// Incidents: listing them, and closing an incident record. Closing the
// record does not resume the instance, which stays INCIDENT (SPEC.md): the
// remedy is to fix the cause and start a new instance.
import { z } from 'zod';
import { incidentSchema } from '../../routes/incidents.ts';
import { idSchema } from '../../services/ids.ts';
import { incidentView } from '../../services/instances.ts';
import { keySchema } from '../../services/keys.ts';
import { pageSchema, readPage } from '../../services/pages.ts';
import { ApiError } from '../../problem.ts';
import { defineTool } from '../tool.ts';
import { pageArgs, READ_ONLY, WRITES } from './args.ts';

export const incidentTools = [
  defineTool({
    name: 'orca.list_incidents',
    title: 'List incidents',
    description:
      'Lists incidents (a job that ran out of retries, a failing expression, an unknown decision…) with the element and message, optionally ' +
      'only OPEN or RESOLVED ones, of one instance or one process. Use it when an instance is in state INCIDENT. Free.',
    session: true,
    input: z.object({
      state: z.enum(['OPEN', 'RESOLVED']).optional(),
      processInstanceKey: keySchema.optional(),
      bpmnProcessId: idSchema.optional(),
      ...pageArgs,
    }),
    output: pageSchema(incidentSchema),
    annotations: READ_ONLY,
    run: async (args, { ctx, session }) => {
      const page = await readPage(() =>
        ctx.engine.store.incidents.listIncidents(session.account, {
          state: args.state,
          instanceKey: args.processInstanceKey,
          bpmnProcessId: args.bpmnProcessId,
          limit: args.limit,
          cursor: args.cursor,
        }),
      );
      return { items: page.items.map(incidentView), nextCursor: page.nextCursor };
    },
  }),
  defineTool({
    name: 'orca.resolve_incident',
    title: 'Close an incident record',
    description:
      'Marks an incident record RESOLVED (idempotent). Only the record is closed: the instance stays INCIDENT and does not resume; fix the ' +
      'cause and start a new instance. Free.',
    session: true,
    input: z.object({ incidentId: keySchema.describe('The id of an incident from orca.list_incidents.') }),
    output: incidentSchema,
    annotations: { ...WRITES, idempotentHint: true },
    run: async (args, { ctx, session }) => {
      const outcome = await ctx.engine.store.incidents.resolveIncident(session.account, args.incidentId);
      if (outcome === null) throw new ApiError('NOT_FOUND', `Incident '${args.incidentId}' not found.`);
      return incidentView(outcome.incident);
    },
  }),
];
