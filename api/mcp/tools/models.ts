// Models: deploying BPMN processes and DMN decisions (free, as over REST),
// and listing the deployed processes.
import { z } from 'zod';
import { decisionDeploymentSchema } from '../../routes/decisions.ts';
import { processDeploymentSchema, processSummarySchema, versionView } from '../../routes/process-definitions.ts';
import { deployDecisionModel, deployProcessModel } from '../../services/deploy-models.ts';
import { resourceNameSchema } from '../../services/model-upload.ts';
import { pageSchema, readPage } from '../../services/pages.ts';
import { defineTool } from '../tool.ts';
import { pageArgs, READ_ONLY, WRITES } from './args.ts';

const modelArgs = (kind: string) =>
  z.object({
    xml: z.string().min(1).describe(`The whole ${kind} XML document.`),
    resourceName: resourceNameSchema.describe(`A file name for the model, e.g. order.${kind === 'BPMN' ? 'bpmn' : 'dmn'}.`),
  });

export const modelTools = [
  defineTool({
    name: 'orca.deploy_process',
    title: 'Deploy a BPMN model',
    description:
      'Deploys a BPMN 2.0 model: every executable process in it gets a new version (XML identical to the latest version keeps it, isNew false; the XML of an older version becomes a new latest version). ' +
      'Deploy before starting instances. An invalid model fails with INVALID_INPUT listing each problem by element id; `warnings` lists elements that run differently from Camunda 8. Free.',
    session: true,
    input: modelArgs('BPMN').extend({
      inlineScripts: z
        .boolean()
        .optional()
        .describe(
          'Extension: evaluate each script task with a zeebe:script expression inline, as Zeebe does, instead of leaving it as a `script:` job. Stored with the version.',
        ),
    }),
    output: processDeploymentSchema,
    annotations: { ...WRITES, idempotentHint: true },
    run: (args, { ctx, session }) => deployProcessModel(ctx, session.account, args.xml, args.resourceName, 'xml', undefined, args.inlineScripts === true),
  }),
  defineTool({
    name: 'orca.deploy_decision',
    title: 'Deploy a DMN model',
    description:
      'Deploys a DMN 1.3 model: every decision in it gets a version (XML identical to the latest version keeps it). Deploy before orca.evaluate_decision ' +
      'or before a process whose business-rule task calls the decision. Free.',
    session: true,
    input: modelArgs('DMN'),
    output: decisionDeploymentSchema,
    annotations: { ...WRITES, idempotentHint: true },
    run: (args, { ctx, session }) => deployDecisionModel(ctx, session.account, args.xml, args.resourceName, 'xml'),
  }),
  defineTool({
    name: 'orca.list_process_definitions',
    title: 'List deployed processes',
    description: 'Lists the processes deployed on the account with their latest version, a page at a time. Use it to find a bpmnProcessId to start. Free.',
    session: true,
    input: z.object(pageArgs),
    output: pageSchema(processSummarySchema),
    annotations: READ_ONLY,
    run: async (args, { ctx, session }) => {
      const page = await readPage(() => ctx.engine.store.definitions.listProcesses(session.account, args));
      return {
        items: page.items.map((p) => ({ ...versionView(p), latestVersion: p.latestVersion })),
        nextCursor: page.nextCursor,
      };
    },
  }),
];
