// Jobs (SPEC.md Endpoints, Job behaviour): workers activate jobs of a type,
// answered at once (`jobs: []` when none), then complete or fail them. An
// activated job stays with its worker until then (no lock period); a failed
// job with retries left is offered again at once; with none the instance
// goes to INCIDENT. Long polling (`requestTimeout`), an activation
// `timeout`, the Idempotency-Key header on complete and fail, a retry
// back-off and a worker's BPMN error (`/error`) are opt-in extensions.
import { z } from 'zod';
import { EngineError, LIMITS, offerOf, type ActivatedJob } from '../../engine/index.ts';
import { route } from '../openapi/route.ts';
import { ApiError } from '../problem.ts';
import { keyedCommand, scopedKey } from '../services/idempotency.ts';
import { idSchema, textSchema } from '../services/ids.ts';
import { keySchema } from '../services/keys.ts';
import { variablesSchema } from '../services/variables.ts';
import type { RegisterRoutes } from './index.ts';

const TAGS = ['jobs'];
const MAX_LONG_POLL_MS = 60_000;

/** Extension (Zeebe's job timeout): shared with the MCP tool orca.activate_jobs. */
export const activationTimeoutSchema = z
  .number()
  .int()
  .min(0)
  .max(LIMITS.maxActivationTimeoutMs)
  .optional()
  .describe(
    'Extension: hold each job this many milliseconds; one neither completed nor failed by then is offered again (at least once). ' +
      'A late complete of such a job is taken while the job exists; once any worker completed it, 404. Absent or 0: no lock period (SPEC.md).',
  )
  .meta({ 'x-orca-extension': true });

const activateBody = z.object({
  type: idSchema.describe('The job type: a task definition type, `userTask`, `script:<name>`, `message:<name>`, `event:message:<elementId>`.'),
  maxJobsToActivate: z.number().int().min(1).max(1000),
  worker: idSchema.optional().describe('A name for the worker, recorded on the jobs it holds.'),
  requestTimeout: z
    .number()
    .int()
    .min(0)
    .max(MAX_LONG_POLL_MS)
    .optional()
    .describe('Extension: wait up to this many milliseconds for a job when none is available (long polling). Absent or 0: answer at once.')
    // DESIGN §6: opt-in capabilities are tagged in the OpenAPI document.
    .meta({ 'x-orca-extension': true }),
  timeout: activationTimeoutSchema,
});

export const jobSchema = z.object({
  key: z.string(),
  type: z.string(),
  retries: z.number().int(),
  processInstanceKey: z.string(),
  bpmnProcessId: z.string(),
  processDefinitionVersion: z.number().int(),
  elementId: z.string(),
  elementInstanceKey: z.string(),
  customHeaders: z.record(z.string(), z.string()),
  variables: z.record(z.string(), z.unknown()),
  worker: z.string(),
  message: z
    .object({
      name: z.string().describe('The message name.'),
      correlationKey: z
        .string()
        .optional()
        .describe('zeebe:subscription correlationKey as evaluated when the wait began (a number as its text); absent when there is none or it gave neither.'),
    })
    .optional()
    .describe('Extension: on the job of a message wait (`message:<name>`, `event:message:<elementId>`), the message it waits for.')
    .meta({ 'x-orca-extension': true }),
});

const jobKeyParams = z.object({ jobKey: keySchema });

export const jobErrorBody = z.object({
  errorCode: idSchema.describe('The BPMN error code: caught by the nearest error boundary event or error event subprocess with this code, or a catch-all.'),
  errorMessage: textSchema.optional().describe('Why; shown on the incident when nothing catches the error.'),
  variables: variablesSchema.optional().describe('Set where the error is caught, as a completion without output mappings would set them.'),
});

/** Extension (Zeebe 8.8's JobResultAdHocSubProcess): the answer of the worker of an ad-hoc subprocess's job. */
export const adHocJobResultSchema = z
  .object({
    type: z.literal('adHocSubProcess').describe('The kind of result; the only one is for the job of an ad-hoc subprocess.'),
    activateElements: z
      .array(
        z.object({
          elementId: idSchema.describe('An inner element of the ad-hoc subprocess with no incoming sequence flow.'),
          variables: variablesSchema.optional().describe('Local variables of the path this activation starts.'),
        }),
      )
      .max(LIMITS.maxActivateElements)
      .optional()
      .describe('Inner elements to activate, each starting a path of its own.'),
    isCompletionConditionFulfilled: z
      .boolean()
      .optional()
      .describe(
        'The ad-hoc subprocess completes (once the paths still active end, unless isCancelRemainingInstances). Default false: when nothing inside is active any more, a new job is created.',
      ),
    isCancelRemainingInstances: z.boolean().optional().describe('With isCompletionConditionFulfilled: terminate the paths still active. Default false.'),
  })
  .describe(
    "Extension: only for the job of an ad-hoc subprocess with a zeebe:taskDefinition (the AI agent pattern), as Zeebe 8.8's job result. " +
      'An element id it cannot activate is a 400 naming the field, and nothing changes.',
  )
  .meta({ 'x-orca-extension': true });

/** The engine refuses a job result naming the field at fault first (`result.activateElements[1].elementId …`): a 400 with that field. */
function resultProblem(error: unknown): unknown {
  if (!(error instanceof EngineError) || error.code !== 'INVALID_ARGUMENT') return error;
  const field = /^(result(?:\.[A-Za-z]+|\[\d+\])*)\b/.exec(error.message)?.[1];
  return field === undefined ? error : new ApiError('INVALID_INPUT', error.message, { errors: [{ field: `body.${field}`, message: error.message }] });
}

export function jobView(job: ActivatedJob): z.infer<typeof jobSchema> {
  return { ...offerOf(job), variables: job.variables, worker: job.worker };
}

export const register: RegisterRoutes = async (app, ctx) => {
  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/jobs/activate',
      summary: 'Activate up to maxJobsToActivate jobs of a type. Answers at once; `jobs` is empty when none is available (poll again after 1 to 5 seconds).',
      tags: TAGS,
      auth: 'apiKey',
      body: activateBody,
      response: { status: 200, schema: z.object({ jobs: z.array(jobSchema) }) },
      errors: [400, 401],
    },
    async ({ body }, request) => {
      const jobs = await ctx.engine.activateJobs(
        request.account,
        body.type,
        body.maxJobsToActivate,
        body.worker ?? 'default',
        body.requestTimeout || undefined,
        body.timeout || undefined,
      );
      return { jobs: jobs.map(jobView) };
    },
  );

  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/jobs/:jobKey/complete',
      summary:
        'Complete a job, merging `variables` into the instance. 404 when the job is gone. Extension: the job of an ad-hoc subprocess takes a `result` ' +
        'naming the inner elements to activate and whether the subprocess is done.',
      tags: TAGS,
      auth: 'apiKey',
      params: jobKeyParams,
      body: z.object({ variables: variablesSchema.optional(), result: adHocJobResultSchema.optional() }),
      response: { status: 204, description: 'Completed.' },
      errors: [400, 401, 404, 409],
      idempotent: true,
    },
    async ({ params, body, idempotency }, request, reply) => {
      await ctx.engine
        .completeJob(
          request.account,
          params.jobKey,
          body.variables,
          keyedCommand(idempotency, (key) => scopedKey.job(params.jobKey, key)),
          body.result,
        )
        .catch((error: unknown) => {
          throw resultProblem(error);
        });
      return reply.code(204).send();
    },
  );

  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/jobs/:jobKey/fail',
      summary: 'Fail a job. With retries above zero it is offered again at once (no retry delay); with 0 the instance goes to INCIDENT.',
      tags: TAGS,
      auth: 'apiKey',
      params: jobKeyParams,
      body: z.object({
        retries: z.number().int().min(0).max(1_000_000).describe('Retries left: the job is offered again while above zero.'),
        errorMessage: textSchema.optional(),
        retryBackOff: z
          .number()
          .int()
          .min(0)
          .max(LIMITS.maxRetryBackOffMs)
          .optional()
          .describe('Extension: with retries left, offer the job again after this many milliseconds instead of at once. Absent or 0: at once.')
          .meta({ 'x-orca-extension': true }),
      }),
      response: { status: 204, description: 'Failed.' },
      errors: [400, 401, 404, 409],
      idempotent: true,
    },
    async ({ params, body, idempotency }, request, reply) => {
      await ctx.engine.failJob(
        request.account,
        params.jobKey,
        body.retries,
        body.errorMessage,
        keyedCommand(idempotency, (key) => scopedKey.job(params.jobKey, key)),
        body.retryBackOff || undefined,
      );
      return reply.code(204).send();
    },
  );

  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/jobs/:jobKey/error',
      summary:
        'Extension: throw a BPMN error for a job instead of completing it. The job is withdrawn; the error is caught by the nearest matching ' +
        'error boundary event or error event subprocess (across call activities), else the instance goes to INCIDENT (UNHANDLED_ERROR_EVENT). 404 when the job is gone.',
      tags: TAGS,
      auth: 'apiKey',
      extension: true,
      params: jobKeyParams,
      body: jobErrorBody,
      response: { status: 204, description: 'Thrown.' },
      errors: [400, 401, 404, 409],
      idempotent: true,
    },
    async ({ params, body, idempotency }, request, reply) => {
      await ctx.engine.throwJobError(
        request.account,
        params.jobKey,
        body,
        keyedCommand(idempotency, (key) => scopedKey.job(params.jobKey, key)),
      );
      return reply.code(204).send();
    },
  );
};
