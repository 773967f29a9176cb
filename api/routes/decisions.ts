// Decisions (SPEC.md Endpoints): DMN models (and CMMN cases) are deployed on /api/v1/models
// (multipart file part `file`, or raw XML with ?resourceName=), which must
// precede evaluation; a deployed decision is then evaluated with input
// variables. Listing and reading decisions fill gaps SPEC.md leaves.
import { z } from 'zod';
import type { DecisionVersionSummary } from '../../engine/index.ts';
import { route } from '../openapi/route.ts';
import { ApiError } from '../problem.ts';
import { evaluateDeployedDecision } from '../services/decisions.ts';
import { keyedCommand, scopedKey } from '../services/idempotency.ts';
import { idSchema } from '../services/ids.ts';
import { deployCaseModel, deployDecisionModel, isCmmnDocument } from '../services/deploy-models.ts';
import { caseModelDeploymentSchema } from './case-definitions.ts';
import { readUploadedModel, uploadQuery } from '../services/model-upload.ts';
import { pageQuery, pageSchema, readPage } from '../services/pages.ts';
import { variablesSchema } from '../services/variables.ts';
import type { RegisterRoutes } from './index.ts';

const TAGS = ['decisions'];

const decisionIdParams = z.object({ decisionId: idSchema });

const decisionSchema = z.object({
  decisionId: z.string(),
  decisionName: z.string().nullable(),
  version: z.number().int(),
  resourceName: z.string(),
  checksum: z.string(),
  deployedAt: z.string(),
});

export const decisionDeploymentSchema = z.object({
  decisions: z.array(z.object({ decisionId: z.string(), version: z.number().int(), isNew: z.boolean(), resourceName: z.string() })),
});

export const evaluationSchema = z.object({
  decisionId: z.string(),
  version: z.number().int(),
  result: z.unknown(),
  evaluated: z.array(z.object({ decisionId: z.string(), result: z.unknown(), matchedRules: z.array(z.string()) })),
});

function decisionView(d: DecisionVersionSummary) {
  return {
    decisionId: d.decisionId,
    decisionName: d.decisionName,
    version: d.version,
    resourceName: d.resourceName,
    checksum: d.checksum,
    deployedAt: d.deployedAt.toISOString(),
  };
}

export const register: RegisterRoutes = async (app, ctx) => {
  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/models',
      summary:
        'Deploy a DMN model: every decision in it gets a version (XML identical to the latest version keeps it). Must precede evaluation. ' +
        'A CMMN document (root element in the CMMN namespace) is deployed as case definitions instead, as POST /api/v1/case-definitions does, and answered with `cases`.',
      tags: TAGS,
      auth: 'apiKey',
      query: uploadQuery,
      rawBody: {
        contentTypes: ['multipart/form-data', 'application/xml'],
        description: 'A multipart form with the file part `file`, or the raw DMN or CMMN XML (then ?resourceName= is required).',
      },
      response: {
        status: 200,
        schema: z.union([decisionDeploymentSchema, caseModelDeploymentSchema]),
      },
      errors: [400, 401, 413, 415],
      credits: 0,
      idempotent: true,
    },
    async ({ query, idempotency }, request) => {
      const upload = await readUploadedModel(request, query.resourceName, 'model.dmn');
      // Fingerprinted by the model and its name, however they were sent (multipart or raw).
      const keyed = keyedCommand(idempotency, scopedKey.deploy, { xml: upload.xml, resourceName: upload.resourceName });
      if (!isCmmnDocument(upload.xml)) return deployDecisionModel(ctx, request.account, upload.xml, upload.resourceName, upload.field, keyed);
      const deployed = await deployCaseModel(ctx, request.account, upload.xml, upload.resourceName, upload.field, keyed);
      return { cases: deployed.deployments, ...('warnings' in deployed ? { warnings: deployed.warnings } : {}) };
    },
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/decisions',
      summary: 'List deployed decisions with their latest version.',
      tags: TAGS,
      auth: 'apiKey',
      query: z.object(pageQuery),
      response: { status: 200, schema: pageSchema(decisionSchema.extend({ latestVersion: z.number().int() })) },
      errors: [400, 401],
    },
    async ({ query }, request) => {
      const page = await readPage(() => ctx.engine.store.decisions.listDecisions(request.account, query));
      return { items: page.items.map((d) => ({ ...decisionView(d), latestVersion: d.latestVersion })), nextCursor: page.nextCursor };
    },
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/decisions/:decisionId',
      summary: 'One decision: its latest version.',
      tags: TAGS,
      auth: 'apiKey',
      params: decisionIdParams,
      response: { status: 200, schema: decisionSchema },
      errors: [401, 404],
    },
    async ({ params }, request) => {
      const stored = await ctx.engine.store.decisions.latestDecision(request.account, params.decisionId);
      if (stored === null) throw new ApiError('NOT_FOUND', `No decision '${params.decisionId}' is deployed.`);
      return decisionView(stored);
    },
  );

  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/decisions/:decisionId/evaluate',
      summary: "Evaluate the latest version of a deployed decision with `variables` as its input. A failing evaluation is a 400 with the decision's reason.",
      tags: TAGS,
      auth: 'apiKey',
      params: decisionIdParams,
      body: z.object({ variables: variablesSchema.optional() }),
      response: {
        status: 200,
        schema: evaluationSchema,
      },
      errors: [400, 401, 404],
    },
    async ({ params, body }, request) => evaluateDeployedDecision(ctx, request.account, params.decisionId, body.variables ?? {}),
  );

  route(
    app,
    {
      method: 'DELETE',
      path: '/api/v1/decisions/:decisionId',
      summary: 'Delete every version of a decision. Processes that call it then fail at their business-rule task, as with any unknown decision.',
      tags: TAGS,
      auth: 'apiKey',
      params: decisionIdParams,
      response: { status: 204, description: 'Deleted.' },
      errors: [400, 401, 404],
      extension: true,
    },
    async ({ params }, request, reply) => {
      await ctx.engine.deleteDecision(request.account, params.decisionId);
      return reply.code(204).send();
    },
  );
};
