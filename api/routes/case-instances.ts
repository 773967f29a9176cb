// Case instances (issue #20). SPEC.md lists CMMN cases but does not show
// their routes, so these are Orca's design, modelled on Flowable's
// cmmn-runtime and on the process instance routes: starting a case costs 1
// credit like a process start (Idempotency-Key as there), cases are listed
// newest first and read with their plan items, a plan item instance is
// acted on (start, trigger, complete, terminate, disable, enable) and a case
// cancelled. A case's human tasks are in the task routes.
import { z } from 'zod';
import { route } from '../openapi/route.ts';
import { ApiError } from '../problem.ts';
import { actOnPlanItem, cancelCase, caseDetail, caseSummary, PLAN_ITEM_ACTIONS, startChargedCase, type PlanItemAction } from '../services/case-instances.ts';
import { keyedCommand, scopedKey } from '../services/idempotency.ts';
import { idSchema } from '../services/ids.ts';
import { INSTANCE_STATES } from '../services/instance-list.ts';
import { keySchema } from '../services/keys.ts';
import { pageQuery, pageSchema, readPage } from '../services/pages.ts';
import { variablesSchema } from '../services/variables.ts';
import type { RegisterRoutes } from './index.ts';

const TAGS = ['case-instances'];
const DESIGN = " (Orca's design: SPEC.md does not show the case routes.)";

const keyParams = z.object({ key: keySchema });
const planItemParams = z.object({ key: keySchema, planItemKey: keySchema });

const startBody = z.object({
  caseDefinitionId: idSchema.describe('The id of a deployed case definition; its latest version starts.'),
  variables: variablesSchema.optional().describe('The case file: the case variables.'),
});

const startedCaseSchema = z.object({ caseInstanceKey: z.string(), caseDefinitionId: z.string(), version: z.number().int(), state: z.string() });

const PLAN_ITEM_STATES = ['AVAILABLE', 'ENABLED', 'DISABLED', 'ACTIVE', 'COMPLETED', 'TERMINATED', 'FAILED'] as const;

const caseSummarySchema = z.object({
  caseInstanceKey: z.string(),
  caseDefinitionId: z.string(),
  version: z.number().int(),
  state: z.enum(INSTANCE_STATES),
  variables: z.record(z.string(), z.unknown()).describe('The case file.'),
  parentKey: z.string().nullable().describe('The case that started it by a case task; null for a case started over the API.'),
  createdAt: z.string(),
  updatedAt: z.string(),
  endedAt: z.string().nullable(),
});

const planItemSchema = z.object({
  planItemKey: z.string().describe('The plan item instance: what the plan item actions address.'),
  planItemId: z.string().describe('The plan item id in the model; the case plan model has the case instance key.'),
  definitionId: z.string(),
  type: z.enum(['stage', 'humanTask', 'processTask', 'caseTask', 'task', 'milestone', 'userEventListener', 'timerEventListener']),
  state: z.enum(PLAN_ITEM_STATES).describe('CMMN 1.1 lifecycle; a milestone or event listener that occurred is COMPLETED.'),
  stageKey: z.string().nullable().describe('The stage instance holding it; null for the case plan model.'),
  jobKey: z.string().nullable().describe('A human task (or blocking generic task): its task in the task routes.'),
  childInstanceKey: z.string().nullable().describe('A blocking process or case task: the instance it waits for.'),
  incidentKey: z.string().nullable(),
  createdAt: z.string(),
  endedAt: z.string().nullable(),
});

const caseDetailSchema = caseSummarySchema.extend({
  planItems: z.array(planItemSchema).describe('Every plan item instance, ended ones included, in creation order.'),
  incidents: z.array(
    z.object({ key: z.string(), type: z.string(), message: z.string(), elementId: z.string(), elementInstanceKey: z.string(), createdAt: z.string() }),
  ),
});

const listQuery = z.object({
  'filter.state': z.enum(INSTANCE_STATES).optional(),
  'filter.caseDefinitionId': idSchema.optional(),
  ...pageQuery,
});

const actions = Object.keys(PLAN_ITEM_ACTIONS) as [PlanItemAction, ...PlanItemAction[]];

const actionBody = z.object({
  action: z
    .enum(actions)
    .describe(
      'start: an ENABLED item (manual activation); trigger: a user event listener that is AVAILABLE; complete: an ACTIVE item that waits on no task or child ' +
        '(a non-blocking or generic task, a stage without autoComplete); terminate: any live item (and everything inside it); disable / enable: an ENABLED / DISABLED item.',
    ),
  variables: variablesSchema.optional().describe('With complete: merged into the case file.'),
});

export const register: RegisterRoutes = async (app, ctx) => {
  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/case-instances',
      summary:
        'Start a case instance of the latest version of a deployed case definition. Costs 1 credit, refunded when the start is refused or unanswered.' + DESIGN,
      tags: TAGS,
      auth: 'apiKey',
      body: startBody,
      response: { status: 201, schema: startedCaseSchema },
      errors: [400, 401, 402, 404, 503],
      credits: 1,
      idempotent: true,
    },
    async ({ body, idempotency }, request) =>
      startChargedCase(ctx, request.account, body.caseDefinitionId, body.variables ?? {}, keyedCommand(idempotency, scopedKey.caseStart)),
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/case-instances',
      summary: 'List case instances, newest first, filtered by state or case definition.' + DESIGN,
      tags: TAGS,
      auth: 'apiKey',
      query: listQuery,
      response: { status: 200, schema: pageSchema(caseSummarySchema) },
      errors: [400, 401],
    },
    async ({ query }, request) => {
      const page = await readPage(() =>
        ctx.engine.store.caseInstances.listCaseInstances(request.account, {
          state: query['filter.state'],
          caseDefinitionId: query['filter.caseDefinitionId'],
          limit: query.limit,
          cursor: query.cursor,
        }),
      );
      return { items: page.items.map(caseSummary), nextCursor: page.nextCursor };
    },
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/case-instances/:key',
      summary: 'One case instance: state, case file, every plan item instance with its state and times, incidents.' + DESIGN,
      tags: TAGS,
      auth: 'apiKey',
      params: keyParams,
      response: { status: 200, schema: caseDetailSchema },
      errors: [400, 401, 404],
    },
    async ({ params }, request) => {
      const row = await ctx.engine.store.caseInstances.getCaseInstance(request.account, params.key);
      if (row === null) throw new ApiError('NOT_FOUND', `Case instance '${params.key}' not found.`);
      return caseDetail(row);
    },
  );

  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/case-instances/:key/plan-items/:planItemKey',
      summary:
        'Act on a plan item instance of an ACTIVE case: start, trigger, complete, terminate, disable or enable it. ' +
        'An unknown plan item is a 404; one not in a state the action applies to (or of the wrong kind) a 409, and nothing changes.' +
        DESIGN,
      tags: TAGS,
      auth: 'apiKey',
      params: planItemParams,
      body: actionBody,
      response: { status: 204, description: 'Applied.' },
      errors: [400, 401, 404, 409],
      idempotent: true,
    },
    async ({ params, body, idempotency }, request, reply) => {
      const keyed = keyedCommand(idempotency, (key) => scopedKey.caseCommand(params.key, key));
      await actOnPlanItem(ctx, request.account, params.key, params.planItemKey, body.action, body.variables, keyed);
      return reply.code(204).send();
    },
  );

  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/case-instances/:key/cancel',
      summary:
        'Cancel a live case (ACTIVE or INCIDENT): every plan item terminates, its tasks and timers are withdrawn, its child processes cancelled; it becomes TERMINATED.' +
        DESIGN,
      tags: TAGS,
      auth: 'apiKey',
      params: keyParams,
      response: { status: 204, description: 'Cancelled.' },
      errors: [400, 401, 404, 409],
      idempotent: true,
    },
    async ({ params, idempotency }, request, reply) => {
      await cancelCase(
        ctx,
        request.account,
        params.key,
        keyedCommand(idempotency, (key) => scopedKey.caseCommand(params.key, key)),
      );
      return reply.code(204).send();
    },
  );
};
