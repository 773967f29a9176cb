// The body of every webhook event type as zod schemas (issue #19; the
// payloads agreed for the outbox writers and listed in docs/webhooks.md):
// the OpenAPI document describes them under `webhooks`, so a receiver's
// types can be generated like a client's. Keys are decimal strings, as
// everywhere in the API.
import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../../engine/index.ts';

const key = (what: string) => z.string().describe(`The ${what} key (a decimal string).`);

const instance = { processInstanceKey: key('process instance'), bpmnProcessId: z.string(), version: z.number().int() };
const caseInstance = {
  caseInstanceKey: key('case instance'),
  caseDefinitionId: z.string(),
  version: z.number().int().describe("The case definition's version."),
};
const task = {
  taskId: z.string().describe('The task id (its job key).'),
  processInstanceKey: key('process instance'),
  bpmnProcessId: z.string(),
  elementId: z.string(),
};

/** `data` of each event type, and when it is sent. */
export const EVENT_DATA: Record<(typeof WEBHOOK_EVENT_TYPES)[number] | 'webhook.test', { when: string; data: z.ZodObject }> = {
  'process_instance.completed': { when: 'An instance completed.', data: z.object(instance) },
  'process_instance.canceled': { when: 'An instance was canceled.', data: z.object(instance) },
  'process_instance.incident': {
    when: 'An instance entered INCIDENT: it got an incident while it had none open.',
    data: z.object({ ...instance, incidentKey: key('incident that put it there') }),
  },
  'case_instance.completed': { when: 'A CMMN case instance completed (its case plan model completed).', data: z.object(caseInstance) },
  'case_instance.terminated': {
    when: 'A CMMN case instance was terminated: canceled (POST /api/v1/case-instances/{key}/cancel), an exit criterion of its case plan model fired, or the case task that started it ended.',
    data: z.object(caseInstance),
  },
  'incident.created': {
    when: 'An incident was raised.',
    data: z.object({
      incidentKey: key('incident'),
      processInstanceKey: key('process instance'),
      bpmnProcessId: z.string(),
      elementId: z.string(),
      type: z.string().describe('The incident type, as GET /api/v1/incidents shows it.'),
      message: z.string(),
      jobKey: z.string().nullable().describe('The job that ran out of retries; null for other incidents.'),
    }),
  },
  'incident.closed': {
    when: 'An incident was resolved through the API.',
    data: z.object({ incidentKey: key('incident'), processInstanceKey: key('process instance'), bpmnProcessId: z.string() }),
  },
  'user_task.created': { when: 'A human task is waiting.', data: z.object(task) },
  'user_task.completed': { when: 'A human task was completed.', data: z.object(task) },
  'deployment.created': {
    when: 'A deploy added at least one version (the same XML again sends nothing).',
    data: z.object({
      deploymentId: z.string().describe("What the deploy answer names the deployment by: its first process's or decision's id."),
      resources: z
        .array(z.object({ kind: z.enum(['process', 'decision', 'case']), id: z.string(), version: z.number().int(), resourceName: z.string() }))
        .describe('The versions this deploy added.'),
    }),
  },
  'credits.low': {
    when: 'A charge took the balance under the low-balance threshold.',
    data: z.object({ balance: z.number(), threshold: z.number() }),
  },
  'webhook.test': { when: 'Sent only by POST /api/v1/webhooks/{id}/test.', data: z.object({ endpointId: z.string() }) },
};

/** The whole body of one event type: `{type, timestamp, data}`. */
export function eventPayloadSchema(type: keyof typeof EVENT_DATA): z.ZodObject {
  return z.object({
    type: z.literal(type),
    timestamp: z.string().describe('When the change happened (ISO 8601).'),
    data: EVENT_DATA[type].data,
  });
}
