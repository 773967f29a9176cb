// Jobs: what a worker agent does. Activate jobs of a type, then complete or
// fail each one (SPEC.md Job behaviour: no lock period; a failed job with
// retries left is offered again at once, with none the instance goes to
// INCIDENT). Free, as over REST.
import { z } from 'zod';
import { LIMITS } from '../../../engine/index.ts';
import { activationTimeoutSchema, adHocJobResultSchema, jobErrorBody, jobSchema, jobView } from '../../routes/jobs.ts';
import { idSchema, textSchema } from '../../services/ids.ts';
import { keySchema } from '../../services/keys.ts';
import { variablesSchema } from '../../services/variables.ts';
import { defineTool } from '../tool.ts';
import { WRITES } from './args.ts';

const MAX_LONG_POLL_MS = 60_000;
const jobKey = keySchema.describe('The key of a job orca.activate_jobs returned.');

export const jobTools = [
  defineTool({
    name: 'orca.activate_jobs',
    title: 'Activate jobs',
    description:
      'Takes up to maxJobsToActivate waiting jobs of a type (a service task type, or `userTask`) for this worker, with their variables and ' +
      'headers. Answers at once with `jobs: []` when none is waiting (poll again in 1 to 5 s, or pass requestTimeout to wait). Each job must then ' +
      'be completed (orca.complete_job) or failed (orca.fail_job). Free.',
    session: true,
    input: z.object({
      type: idSchema.describe('The job type: a task definition type, `userTask`, `script:<name>`, `message:<name>`.'),
      maxJobsToActivate: z.number().int().min(1).max(1000),
      worker: idSchema.optional().describe('A name for the worker, recorded on the jobs it holds.'),
      requestTimeout: z.number().int().min(0).max(MAX_LONG_POLL_MS).optional().describe('Wait up to this many milliseconds for a job when none is waiting.'),
      timeout: activationTimeoutSchema,
    }),
    output: z.object({ jobs: z.array(jobSchema) }),
    annotations: { ...WRITES, idempotentHint: false },
    run: async (args, { ctx, session }) => {
      const jobs = await ctx.engine.activateJobs(
        session.account,
        args.type,
        args.maxJobsToActivate,
        args.worker ?? 'default',
        args.requestTimeout || undefined,
        args.timeout || undefined,
      );
      return { jobs: jobs.map(jobView) };
    },
  }),
  defineTool({
    name: 'orca.complete_job',
    title: 'Complete a job',
    description:
      'Completes an activated job, merging `variables` into the instance, which then moves on. NOT_FOUND when the job is gone (completed, or its instance ended). The job of an ad-hoc subprocess takes a `result` (extension) naming the inner elements to activate and whether it is done. Free.',
    session: true,
    input: z.object({ jobKey, variables: variablesSchema.optional(), result: adHocJobResultSchema.optional() }),
    output: z.object({ jobKey: z.string(), completed: z.literal(true) }),
    annotations: { ...WRITES, idempotentHint: false },
    run: async (args, { ctx, session }) => {
      await ctx.engine.completeJob(session.account, args.jobKey, args.variables, {}, args.result);
      return { jobKey: args.jobKey, completed: true as const };
    },
  }),
  defineTool({
    name: 'orca.fail_job',
    title: 'Fail a job',
    description:
      'Reports that an activated job failed. With retries above zero it is offered again at once; with 0 the instance goes to INCIDENT ' +
      '(see orca.list_incidents). Free.',
    session: true,
    input: z.object({
      jobKey,
      retries: z.number().int().min(0).max(1_000_000).describe('Retries left: the job is offered again while above zero.'),
      errorMessage: textSchema.optional().describe('Why it failed; shown on the incident when retries reach 0.'),
      retryBackOff: z
        .number()
        .int()
        .min(0)
        .max(LIMITS.maxRetryBackOffMs)
        .optional()
        .describe('Extension: with retries left, offer the job again after this many milliseconds instead of at once.'),
    }),
    output: z.object({ jobKey: z.string(), failed: z.literal(true), retries: z.number().int() }),
    annotations: { ...WRITES, idempotentHint: false },
    run: async (args, { ctx, session }) => {
      await ctx.engine.failJob(session.account, args.jobKey, args.retries, args.errorMessage, {}, args.retryBackOff || undefined);
      return { jobKey: args.jobKey, failed: true as const, retries: args.retries };
    },
  }),
  defineTool({
    name: 'orca.throw_job_error',
    title: 'Throw a BPMN error for a job',
    description:
      'Extension: instead of completing an activated job, throws a BPMN error with errorCode. The job is withdrawn; the nearest error boundary ' +
      'event or error event subprocess with that code (or a catch-all) takes over, across call activities; when none does, the instance goes to ' +
      'INCIDENT (UNHANDLED_ERROR_EVENT). `variables` are set where the error is caught. NOT_FOUND when the job is gone. Free.',
    session: true,
    input: jobErrorBody.extend({ jobKey }),
    output: z.object({ jobKey: z.string(), thrown: z.literal(true), errorCode: z.string() }),
    annotations: { ...WRITES, idempotentHint: false },
    run: async (args, { ctx, session }) => {
      const { jobKey: key, ...error } = args;
      await ctx.engine.throwJobError(session.account, key, error);
      return { jobKey: key, thrown: true as const, errorCode: args.errorCode };
    },
  }),
];
