// CMMN case definitions: each case of a deployed CMMN document gets a version
// per (account, case id), with the same rules as processes and decisions, by
// the same code (versioned-resources.ts): XML identical to the latest keeps
// its version, an older version's XML becomes the new latest, deploys of one
// case serialise on its `case_definitions` row. The whole CMMN document is
// stored with each case, as a DMN document is with each decision.
import type { Page, PageRequest } from './cursor.ts';
import type { Db } from './db.ts';
import { guarded } from './errors.ts';
import type { Tx } from './statement.ts';
import { caseDefinitions, caseDefinitionVersions } from './schema.ts';
import { versionedResources, type Deployed } from './versioned-resources.ts';

export interface DeployCaseInput {
  caseDefinitionId: string;
  caseName?: string | null;
  resourceName: string;
  xml: string;
  /** sha256 of the XML, lower-case hex; computed when absent. */
  checksum?: string;
}

export interface DeployCaseResult {
  caseDefinitionId: string;
  version: number;
  checksum: string;
  isNew: boolean;
}

export interface CaseVersionSummary {
  caseDefinitionId: string;
  caseName: string | null;
  version: number;
  resourceName: string;
  checksum: string;
  deployedAt: Date;
}

export interface CaseVersion extends CaseVersionSummary {
  xml: string;
}

export interface CaseSummary extends CaseVersionSummary {
  latestVersion: number;
}

function deployResult({ id, ...rest }: Deployed): DeployCaseResult {
  return { caseDefinitionId: id, ...rest };
}

export function caseDefinitionsRepository(db: Db) {
  const versioned = versionedResources(db, {
    idKey: 'caseDefinitionId',
    kind: 'case',
    heads: caseDefinitions,
    versions: caseDefinitionVersions,
    summary: {
      caseDefinitionId: caseDefinitionVersions.caseDefinitionId,
      caseName: caseDefinitionVersions.caseName,
      version: caseDefinitionVersions.version,
      resourceName: caseDefinitionVersions.resourceName,
      checksum: caseDefinitionVersions.checksum,
      deployedAt: caseDefinitionVersions.deployedAt,
    },
    extra: { caseName: caseDefinitionVersions.caseName },
  });

  /** Deploys the cases of one CMMN resource atomically, inside `tx` when given; results in input order. */
  async function deployCases(account: string, inputs: DeployCaseInput[], tx?: Tx): Promise<DeployCaseResult[]> {
    const deployed = await versioned.deploy(
      account,
      inputs.map(({ caseDefinitionId, caseName, ...input }) => ({ id: caseDefinitionId, ...input, columns: { caseName: caseName ?? null } })),
      tx,
    );
    return deployed.map(deployResult);
  }

  const latestCase = (account: string, caseDefinitionId: string): Promise<CaseVersion | null> => versioned.latest(account, caseDefinitionId);

  const getCaseVersion = (account: string, caseDefinitionId: string, version: number): Promise<CaseVersion | null> =>
    versioned.getVersion(account, caseDefinitionId, version);

  /** Every version of one case definition, oldest first. */
  const listCaseVersions = (account: string, caseDefinitionId: string): Promise<CaseVersionSummary[]> => versioned.listVersions(account, caseDefinitionId);

  /** Deployed case definitions with their latest version, by case id. */
  const listCases = (account: string, page: PageRequest = {}): Promise<Page<CaseSummary>> => versioned.list(account, page);

  return guarded({ deployCases, latestCase, getCaseVersion, listCaseVersions, listCases });
}
