// Case definitions (issue #20; SPEC.md lists CMMN cases but shows no route,
// so these are Orca's design, modelled on Flowable's cmmn-repository and on
// the process definition routes): deploying CMMN documents, free of charge,
// as a multipart file part `file` or raw XML with ?resourceName=, versioned
// by checksum like processes; and reading back what was deployed.
import { z } from 'zod';
import type { CaseVersionSummary } from '../../engine/index.ts';
import { route } from '../openapi/route.ts';
import { ApiError } from '../problem.ts';
import { keyedCommand, scopedKey } from '../services/idempotency.ts';
import { idSchema } from '../services/ids.ts';
import { deployCaseModel } from '../services/deploy-models.ts';
import { readUploadedModel, uploadQuery } from '../services/model-upload.ts';
import { pageQuery, pageSchema, readPage } from '../services/pages.ts';
import type { RegisterRoutes } from './index.ts';

const TAGS = ['case-definitions'];

const caseDefinitionIdParams = z.object({ caseDefinitionId: idSchema });

const caseDeploymentSchema = z.object({
  caseDefinitionId: z.string().describe('The `id` of the `<case>` element.'),
  version: z.number().int(),
  resourceName: z.string(),
  isNew: z
    .boolean()
    .describe("False when this exact XML is the latest version already: that version is returned. An older version's XML becomes a new version."),
});

const caseWarningSchema = z.object({
  elementId: z.string().nullable().describe('The element concerned; null for the document as a whole.'),
  code: z.string().describe('CMMN_CASE_FILE_ON_PART_IGNORED, CMMN_EVENT_NEVER_RAISED, CMMN_ON_PART_CRITERION_IGNORED (docs/cmmn.md).'),
  message: z.string().describe('What Orca does with the element.'),
});

const warnings = z
  .array(caseWarningSchema)
  .optional()
  .describe('What deploys but is ignored or never happens, each with the reason. Absent when there are none.');

/** POST /api/v1/case-definitions' answer: like a BPMN deploy's, `id` being the first case's. */
export const caseDeploymentAnswerSchema = z.object({
  id: z.string().describe('The first case id in the document.'),
  deployments: z.array(caseDeploymentSchema),
  warnings,
});

/** POST /api/v1/models' answer for a CMMN document, beside a DMN one's `decisions`. */
export const caseModelDeploymentSchema = z.object({ cases: z.array(caseDeploymentSchema), warnings });

const caseVersionSchema = z.object({
  caseDefinitionId: z.string(),
  caseName: z.string().nullable(),
  version: z.number().int(),
  resourceName: z.string(),
  checksum: z.string(),
  deployedAt: z.string(),
});

const caseSummarySchema = caseVersionSchema.extend({ latestVersion: z.number().int() });

function versionView(v: CaseVersionSummary) {
  return {
    caseDefinitionId: v.caseDefinitionId,
    caseName: v.caseName,
    version: v.version,
    resourceName: v.resourceName,
    checksum: v.checksum,
    deployedAt: v.deployedAt.toISOString(),
  };
}

const versionQuery = z.object({ version: z.coerce.number().int().min(1).max(2_147_483_647).optional() });

function notFound(caseDefinitionId: string, version?: number): ApiError {
  return new ApiError(
    'NOT_FOUND',
    version === undefined ? `No case definition '${caseDefinitionId}' is deployed.` : `Case definition '${caseDefinitionId}' has no version ${version}.`,
  );
}

export const register: RegisterRoutes = async (app, ctx) => {
  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/case-definitions',
      summary: 'Deploy a CMMN 1.1 document (free). Every case in it is deployed; `id` is the first one. Invalid XML is a 400 naming each element.',
      tags: TAGS,
      auth: 'apiKey',
      query: uploadQuery,
      rawBody: {
        contentTypes: ['multipart/form-data', 'application/xml'],
        description: 'A multipart form with the file part `file`, or the raw CMMN XML (then ?resourceName= is required).',
      },
      response: { status: 200, schema: caseDeploymentAnswerSchema },
      errors: [400, 401, 413, 415],
      credits: 0,
      idempotent: true,
    },
    async ({ query, idempotency }, request) => {
      const upload = await readUploadedModel(request, query.resourceName, 'model.cmmn');
      const keyed = keyedCommand(idempotency, scopedKey.deploy, { xml: upload.xml, resourceName: upload.resourceName });
      return deployCaseModel(ctx, request.account, upload.xml, upload.resourceName, upload.field, keyed);
    },
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/case-definitions',
      summary: 'List deployed case definitions with their latest version.',
      tags: TAGS,
      auth: 'apiKey',
      query: z.object(pageQuery),
      response: { status: 200, schema: pageSchema(caseSummarySchema) },
      errors: [400, 401],
    },
    async ({ query }, request) => {
      const page = await readPage(() => ctx.engine.store.cases.listCases(request.account, query));
      return { items: page.items.map((c) => ({ ...versionView(c), latestVersion: c.latestVersion })), nextCursor: page.nextCursor };
    },
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/case-definitions/:caseDefinitionId',
      summary: 'One case definition: its latest version and every deployment, oldest first.',
      tags: TAGS,
      auth: 'apiKey',
      params: caseDefinitionIdParams,
      response: { status: 200, schema: caseSummarySchema.extend({ id: z.string(), deployments: z.array(caseVersionSchema) }) },
      errors: [401, 404],
    },
    async ({ params }, request) => {
      const versions = await ctx.engine.store.cases.listCaseVersions(request.account, params.caseDefinitionId);
      if (versions.length === 0) throw notFound(params.caseDefinitionId);
      const latest = versions[versions.length - 1];
      return { id: latest.caseDefinitionId, ...versionView(latest), latestVersion: latest.version, deployments: versions.map(versionView) };
    },
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/case-definitions/:caseDefinitionId/xml',
      summary: 'The deployed CMMN XML: the latest version, or ?version=.',
      tags: TAGS,
      auth: 'apiKey',
      params: caseDefinitionIdParams,
      query: versionQuery,
      response: { status: 200, contentType: 'application/xml', description: 'The CMMN XML as deployed.' },
      errors: [400, 401, 404],
    },
    async ({ params, query }, request) => {
      const stored =
        query.version === undefined
          ? await ctx.engine.store.cases.latestCase(request.account, params.caseDefinitionId)
          : await ctx.engine.store.cases.getCaseVersion(request.account, params.caseDefinitionId, query.version);
      if (stored === null) throw notFound(params.caseDefinitionId, query.version);
      return stored.xml;
    },
  );
};
