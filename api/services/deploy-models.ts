// Deploying models as every interface does it (REST uploads, MCP): BPMN
// processes and DMN decisions, free of charge; a model the compiler refuses
// is INVALID_INPUT with each problem, naming the field the XML came from. A
// BPMN answer lists the model's warnings (extension) when it has any.
import { type CommandOptions, ModelRejected } from '../../engine/index.ts';
import type { ApiContext } from '../context.ts';
import { rejectedModel } from './model-upload.ts';

type Keyed = CommandOptions & { commandKey: string; fingerprint: string };

export async function deployProcessModel(
  ctx: ApiContext,
  account: string,
  xml: string,
  resourceName: string,
  field: string,
  keyed?: Keyed,
  /** Extension: evaluate zeebe:script expressions inline (engine DeployOptions). */
  inlineScripts = false,
) {
  let deployed;
  try {
    deployed = await ctx.engine.deployModel(account, xml, resourceName, inlineScripts ? { ...keyed, inlineScripts } : keyed);
  } catch (err) {
    if (err instanceof ModelRejected) throw rejectedModel(err.problems, field);
    throw err;
  }
  const { deployments, warnings } = deployed;
  if (deployments.length === 0) throw rejectedModel([], field);
  const answer = {
    id: deployments[0].bpmnProcessId,
    deployments: deployments.map((d) => ({ bpmnProcessId: d.bpmnProcessId, version: d.version, resourceName, isNew: d.isNew })),
  };
  // Left out when there is nothing to say, so the answer is SPEC.md's own for such a model.
  if (warnings.length === 0) return answer;
  return { ...answer, warnings: warnings.map((w) => ({ elementId: w.elementId ?? null, code: w.code, message: w.message })) };
}

export async function deployDecisionModel(ctx: ApiContext, account: string, xml: string, resourceName: string, field: string, keyed?: Keyed) {
  let deployed;
  try {
    deployed = await ctx.engine.deployDecisions(account, xml, resourceName, keyed);
  } catch (err) {
    if (err instanceof ModelRejected) throw rejectedModel(err.problems, field);
    throw err;
  }
  if (deployed.length === 0) throw rejectedModel([], field);
  return { decisions: deployed.map((d) => ({ decisionId: d.decisionId, version: d.version, isNew: d.isNew, resourceName })) };
}

/** A CMMN deploy: each case of the document gets a version; the document's warnings ride along when it has any. */
export async function deployCaseModel(ctx: ApiContext, account: string, xml: string, resourceName: string, field: string, keyed?: Keyed) {
  let deployed;
  try {
    deployed = await ctx.engine.deployCases(account, xml, resourceName, keyed);
  } catch (err) {
    if (err instanceof ModelRejected) throw rejectedModel(err.problems, field);
    throw err;
  }
  const { deployments, warnings } = deployed;
  if (deployments.length === 0) throw rejectedModel([], field);
  const answer = {
    id: deployments[0].caseDefinitionId,
    deployments: deployments.map((d) => ({ caseDefinitionId: d.caseDefinitionId, version: d.version, resourceName, isNew: d.isNew })),
  };
  if (warnings.length === 0) return answer;
  return { ...answer, warnings: warnings.map((w) => ({ elementId: w.elementId ?? null, code: w.code, message: w.message })) };
}

/**
 * Whether a document sent to POST /api/v1/models is CMMN rather than DMN: its
 * root element is in a CMMN namespace (1.1, its beta, or 1.0, which the CMMN
 * compiler then refuses with what to change). Anything else goes to the DMN
 * compiler, whose problems are the answer.
 */
export function isCmmnDocument(xml: string): boolean {
  const root = /<(?![?!])[^>]*>/.exec(xml);
  return root !== null && root[0].includes('http://www.omg.org/spec/CMMN/');
}
