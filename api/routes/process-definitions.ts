// Process definitions (SPEC.md Endpoints): deploying BPMN models, free of
// charge, as a multipart file part `file` or raw XML with ?resourceName=;
// and reading back what was deployed (lists, versions, the XML itself).
import { z } from 'zod';
import type { ProcessVersionSummary } from '../../engine/index.ts';
import { route } from '../openapi/route.ts';
import { ApiError } from '../problem.ts';
import { keyedCommand, scopedKey } from '../services/idempotency.ts';
import { idSchema } from '../services/ids.ts';
import { deployProcessModel } from '../services/deploy-models.ts';
import { readUploadedModel, uploadQuery } from '../services/model-upload.ts';
import { pageQuery, pageSchema, readPage } from '../services/pages.ts';
import { elementCountsSchema } from '../services/statistics.ts';
import type { RegisterRoutes } from './index.ts';

const TAGS = ['process-definitions'];

const bpmnProcessIdParams = z.object({ bpmnProcessId: idSchema });

export const deploymentSchema = z.object({
  bpmnProcessId: z.string(),
  version: z.number().int(),
  resourceName: z.string(),
  isNew: z
    .boolean()
    .describe("False when this exact XML is the latest version already: that version is returned. An older version's XML becomes a new version."),
});

export const deployWarningSchema = z.object({
  elementId: z.string().nullable().describe('The element (or process) concerned; null for the model as a whole.'),
  code: z
    .string()
    .describe(
      'SCRIPT_TASK_IS_JOB, ERROR_CATCH_NEEDS_EXTENSION, ASSIGNMENT_IGNORED, FORM_IGNORED, TASK_SCHEDULE_IGNORED, MESSAGE_WAIT_IS_JOB, MESSAGE_EVENT_NEEDS_EXTENSION, SIGNAL_EVENT_NEEDS_EXTENSION, PROCESS_NOT_EXECUTABLE.',
    ),
  message: z.string().describe('What Orca does instead of what Camunda 8 would.'),
});

/** A BPMN deploy's answer: SPEC.md's `id` and `deployments`, and the warnings (extension) when there are any. */
export const processDeploymentSchema = z.object({
  id: z.string().describe('The first process id in the model.'),
  deployments: z.array(deploymentSchema),
  warnings: z
    .array(deployWarningSchema)
    .optional()
    .describe('Extension: elements that deploy but run differently from Camunda 8, each with what happens instead. Absent when there are none.')
    .meta({ 'x-orca-extension': true }),
});

export const processVersionSchema = z.object({
  bpmnProcessId: z.string(),
  version: z.number().int(),
  resourceName: z.string(),
  checksum: z.string(),
  deployedAt: z.string(),
  inlineScripts: z
    .literal(true)
    .optional()
    .describe('Extension: this version was deployed with inlineScripts=true (zeebe:script expressions run inline). Absent otherwise.')
    .meta({ 'x-orca-extension': true }),
});

export const processSummarySchema = processVersionSchema.extend({ latestVersion: z.number().int() });

export function versionView(v: ProcessVersionSummary) {
  const view = {
    bpmnProcessId: v.bpmnProcessId,
    version: v.version,
    resourceName: v.resourceName,
    checksum: v.checksum,
    deployedAt: v.deployedAt.toISOString(),
  };
  // Left out unless chosen, so a version deployed as SPEC.md describes reads exactly as before.
  return v.inlineScripts ? { ...view, inlineScripts: true as const } : view;
}

const deployQuery = uploadQuery.extend({
  inlineScripts: z
    .enum(['true', 'false'])
    .optional()
    .describe(
      'Extension: `true` evaluates each script task with a zeebe:script expression inline, as Zeebe does (FEEL, with the same limits), ' +
        'setting its resultVariable, instead of waiting as a `script:` job; a failing expression is an incident naming the element. Stored with ' +
        'the version: the same XML deployed with another choice is a new version. Absent or `false`: SPEC.md (a job).',
    )
    .meta({ 'x-orca-extension': true }),
});

const versionQuery = z.object({ version: z.coerce.number().int().min(1).max(2_147_483_647).optional() });

function notFound(bpmnProcessId: string, version?: number): ApiError {
  return new ApiError(
    'NOT_FOUND',
    version === undefined ? `No process '${bpmnProcessId}' is deployed.` : `Process '${bpmnProcessId}' has no version ${version}.`,
  );
}

export const register: RegisterRoutes = async (app, ctx) => {
  route(
    app,
    {
      method: 'POST',
      path: '/api/v1/process-definitions',
      summary: 'Deploy a BPMN model (free). Several processes in one file are all deployed; `id` is the first one.',
      tags: TAGS,
      auth: 'apiKey',
      query: deployQuery,
      rawBody: {
        contentTypes: ['multipart/form-data', 'application/xml'],
        description: 'A multipart form with the file part `file`, or the raw BPMN XML (then ?resourceName= is required).',
      },
      response: { status: 200, schema: processDeploymentSchema },
      errors: [400, 401, 413, 415],
      credits: 0,
      idempotent: true,
    },
    async ({ query, idempotency }, request) => {
      const upload = await readUploadedModel(request, query.resourceName, 'model.bpmn');
      // Fingerprinted by the model and its name, however they were sent (multipart or raw).
      const inlineScripts = query.inlineScripts === 'true';
      const keyed = keyedCommand(idempotency, scopedKey.deploy, {
        xml: upload.xml,
        resourceName: upload.resourceName,
        ...(inlineScripts ? { inlineScripts } : {}),
      });
      return deployProcessModel(ctx, request.account, upload.xml, upload.resourceName, upload.field, keyed, inlineScripts);
    },
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/process-definitions',
      summary: 'List deployed processes with their latest version.',
      tags: TAGS,
      auth: 'apiKey',
      query: z.object(pageQuery),
      response: { status: 200, schema: pageSchema(processSummarySchema) },
      errors: [400, 401],
    },
    async ({ query }, request) => {
      const page = await readPage(() => ctx.engine.store.definitions.listProcesses(request.account, query));
      return { items: page.items.map((p) => ({ ...versionView(p), latestVersion: p.latestVersion })), nextCursor: page.nextCursor };
    },
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/process-definitions/:bpmnProcessId',
      summary: 'One process definition: its latest version and every deployment, oldest first.',
      tags: TAGS,
      auth: 'apiKey',
      params: bpmnProcessIdParams,
      response: { status: 200, schema: processSummarySchema.extend({ id: z.string(), deployments: z.array(processVersionSchema) }) },
      errors: [401, 404],
    },
    async ({ params }, request) => {
      const versions = await ctx.engine.store.definitions.listProcessVersions(request.account, params.bpmnProcessId);
      if (versions.length === 0) throw notFound(params.bpmnProcessId);
      const latest = versions[versions.length - 1];
      return { id: latest.bpmnProcessId, ...versionView(latest), latestVersion: latest.version, deployments: versions.map(versionView) };
    },
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/process-definitions/:bpmnProcessId/statistics',
      summary:
        'Per-element counts across all instances of one version (the latest, or ?version=): active, incidents, completed and canceled ' +
        'by element id, kept as the engine commits (no instance is read). `instances` counts the version’s instances by state.',
      tags: TAGS,
      auth: 'apiKey',
      params: bpmnProcessIdParams,
      query: versionQuery,
      response: {
        status: 200,
        schema: z.object({
          bpmnProcessId: z.string(),
          version: z.number().int(),
          elements: z.array(elementCountsSchema).describe('Elements entered at least once, by element id.'),
          instances: z
            .object({ active: z.number().int(), incidents: z.number().int(), completed: z.number().int(), canceled: z.number().int() })
            .describe('Instances of the version by state: ACTIVE, INCIDENT, COMPLETED, TERMINATED.'),
        }),
      },
      errors: [400, 401, 404],
      extension: true,
    },
    async ({ params, query }, request) => {
      const version = query.version ?? (await ctx.engine.store.definitions.latestProcess(request.account, params.bpmnProcessId))?.version;
      if (version === undefined) throw notFound(params.bpmnProcessId);
      const stats = await ctx.engine.store.statistics.definitionStatistics(request.account, params.bpmnProcessId, version);
      if (query.version !== undefined && stats.elements.length === 0) {
        // No counts may also mean no such version: only then is it a 404.
        const stored = await ctx.engine.store.definitions.getProcessVersion(request.account, params.bpmnProcessId, version);
        if (stored === null) throw notFound(params.bpmnProcessId, version);
      }
      return { bpmnProcessId: params.bpmnProcessId, version, ...stats };
    },
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/v1/process-definitions/:bpmnProcessId/xml',
      summary: 'The deployed BPMN XML: the latest version, or ?version=.',
      tags: TAGS,
      auth: 'apiKey',
      params: bpmnProcessIdParams,
      query: versionQuery,
      response: { status: 200, contentType: 'application/xml', description: 'The BPMN XML as deployed.' },
      errors: [400, 401, 404],
    },
    async ({ params, query }, request) => {
      const stored =
        query.version === undefined
          ? await ctx.engine.store.definitions.latestProcess(request.account, params.bpmnProcessId)
          : await ctx.engine.store.definitions.getProcessVersion(request.account, params.bpmnProcessId, query.version);
      if (stored === null) throw notFound(params.bpmnProcessId, query.version);
      return stored.xml;
    },
  );

  route(
    app,
    {
      method: 'DELETE',
      path: '/api/v1/process-definitions/:bpmnProcessId',
      summary:
        'Delete every version of a process, as Zeebe deletes a resource. Refused (409) while an instance of it is ACTIVE or INCIDENT, or a timer start event of it is armed.',
      tags: TAGS,
      auth: 'apiKey',
      params: bpmnProcessIdParams,
      response: { status: 204, description: 'Deleted.' },
      errors: [400, 401, 404, 409],
      extension: true,
    },
    async ({ params }, request, reply) => {
      await ctx.engine.deleteProcess(request.account, params.bpmnProcessId);
      return reply.code(204).send();
    },
  );
};
