// DMN decisions: each decision of a deployed DMN model gets a version per
// (account, decision id), with the same rules as processes, by the same code
// (versioned-resources.ts): XML identical to the latest keeps its version, an
// older version's XML becomes the new latest, deploys of one
// decision serialise on its `decisions` row. The whole DMN document is
// stored with each decision, since a decision may require others in it.
import type { Page, PageRequest } from './cursor.ts';
import type { Db } from './db.ts';
import { guarded } from './errors.ts';
import type { Tx } from './statement.ts';
import { decisions, decisionVersions } from './schema.ts';
import { versionedResources, type Deployed, type RemoveOutcome } from './versioned-resources.ts';

export interface DeployDecisionInput {
  decisionId: string;
  decisionName?: string | null;
  resourceName: string;
  xml: string;
  /** sha256 of the XML, lower-case hex; computed when absent. */
  checksum?: string;
}

export interface DeployDecisionResult {
  decisionId: string;
  version: number;
  checksum: string;
  isNew: boolean;
}

export interface DecisionVersionSummary {
  decisionId: string;
  decisionName: string | null;
  version: number;
  resourceName: string;
  checksum: string;
  deployedAt: Date;
}

export interface DecisionVersion extends DecisionVersionSummary {
  xml: string;
}

export interface DecisionSummary extends DecisionVersionSummary {
  latestVersion: number;
}

function deployResult({ id, ...rest }: Deployed): DeployDecisionResult {
  return { decisionId: id, ...rest };
}

export function decisionsRepository(db: Db) {
  const versioned = versionedResources(db, {
    idKey: 'decisionId',
    kind: 'decision',
    heads: decisions,
    versions: decisionVersions,
    summary: {
      decisionId: decisionVersions.decisionId,
      decisionName: decisionVersions.decisionName,
      version: decisionVersions.version,
      resourceName: decisionVersions.resourceName,
      checksum: decisionVersions.checksum,
      deployedAt: decisionVersions.deployedAt,
    },
    extra: { decisionName: decisionVersions.decisionName },
  });

  /** Deploys the decisions of one DMN resource atomically, inside `tx` when given; results in input order. */
  async function deployDecisions(account: string, inputs: DeployDecisionInput[], tx?: Tx): Promise<DeployDecisionResult[]> {
    const deployed = await versioned.deploy(
      account,
      inputs.map(({ decisionId, decisionName, ...input }) => ({ id: decisionId, ...input, columns: { decisionName: decisionName ?? null } })),
      tx,
    );
    return deployed.map(deployResult);
  }

  async function deployDecision(account: string, input: DeployDecisionInput): Promise<DeployDecisionResult> {
    const [result] = await deployDecisions(account, [input]);
    return result;
  }

  const latestDecision = (account: string, decisionId: string): Promise<DecisionVersion | null> => versioned.latest(account, decisionId);

  const getDecisionVersion = (account: string, decisionId: string, version: number): Promise<DecisionVersion | null> =>
    versioned.getVersion(account, decisionId, version);

  const listDecisions = (account: string, page: PageRequest = {}): Promise<Page<DecisionSummary>> => versioned.list(account, page);

  /** Removes every version of a decision. Processes that call it fail at their business-rule task from then on, as with any unknown decision. */
  const deleteDecision = (account: string, decisionId: string): Promise<RemoveOutcome> => versioned.remove(account, decisionId);

  return guarded({ deployDecisions, deployDecision, latestDecision, getDecisionVersion, listDecisions, deleteDecision });
}
