// BPMN process definitions: deploying a model yields a version per (account,
// BPMN process id); XML identical to the latest version's keeps that version,
// an older version's XML becomes the new latest (a rollback), and deploys of one process serialise on its `definitions` row.
// The versioning is versioned-resources.ts, shared with DMN decisions; this
// module names the tables and the process-shaped rows and methods.
import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { Page, PageRequest } from './cursor.ts';
import type { Db } from './db.ts';
import { guarded } from './errors.ts';
import type { Tx } from './statement.ts';
import { definitions, definitionVersions, instances, timers } from './schema.ts';
import { versionedResources, type Deployed, type RemoveOutcome } from './versioned-resources.ts';

export interface DeployProcessInput {
  bpmnProcessId: string;
  resourceName: string;
  xml: string;
  /** sha256 of the XML, lower-case hex; computed when absent. */
  checksum?: string;
  /** Extension: evaluate zeebe:script expressions inline (stored with the version; part of what a redeploy compares). */
  inlineScripts?: boolean;
}

export interface DeployResult {
  bpmnProcessId: string;
  version: number;
  checksum: string;
  /** False when this exact XML was already deployed (the existing version is returned). */
  isNew: boolean;
}

export interface ProcessVersionSummary {
  bpmnProcessId: string;
  version: number;
  resourceName: string;
  checksum: string;
  deployedAt: Date;
  /** Extension: script tasks with a zeebe:script expression run inline in this version. */
  inlineScripts: boolean;
}

export interface ProcessVersion extends ProcessVersionSummary {
  xml: string;
}

export interface ProcessSummary extends ProcessVersionSummary {
  latestVersion: number;
}

function deployResult({ id, ...rest }: Deployed): DeployResult {
  return { bpmnProcessId: id, ...rest };
}

export function definitionsRepository(db: Db) {
  const processes = versionedResources(db, {
    idKey: 'bpmnProcessId',
    kind: 'process',
    heads: definitions,
    versions: definitionVersions,
    summary: {
      bpmnProcessId: definitionVersions.bpmnProcessId,
      version: definitionVersions.version,
      resourceName: definitionVersions.resourceName,
      checksum: definitionVersions.checksum,
      deployedAt: definitionVersions.deployedAt,
      inlineScripts: definitionVersions.inlineScripts,
    },
    extra: { inlineScripts: definitionVersions.inlineScripts },
    compared: ['inlineScripts'],
  });

  /** Deploys several processes (one resource) atomically, inside `tx` when given; results in input order. */
  async function deployProcesses(account: string, inputs: DeployProcessInput[], tx?: Tx): Promise<DeployResult[]> {
    const deployed = await processes.deploy(
      account,
      inputs.map(({ bpmnProcessId, inlineScripts, ...input }) => ({ id: bpmnProcessId, ...input, columns: { inlineScripts: inlineScripts ?? false } })),
      tx,
    );
    return deployed.map(deployResult);
  }

  async function deployProcess(account: string, input: DeployProcessInput): Promise<DeployResult> {
    const [result] = await deployProcesses(account, [input]);
    return result;
  }

  const latestProcess = (account: string, bpmnProcessId: string): Promise<ProcessVersion | null> => processes.latest(account, bpmnProcessId);

  const getProcessVersion = (account: string, bpmnProcessId: string, version: number): Promise<ProcessVersion | null> =>
    processes.getVersion(account, bpmnProcessId, version);

  /** Every version of one process, oldest first (the `deployments` of a process definition). */
  const listProcessVersions = (account: string, bpmnProcessId: string): Promise<ProcessVersionSummary[]> => processes.listVersions(account, bpmnProcessId);

  /** Deployed processes with their latest version, by BPMN process id. */
  const listProcesses = (account: string, page: PageRequest = {}): Promise<Page<ProcessSummary>> => processes.list(account, page);

  /**
   * Removes every version of a process, as Zeebe's resource deletion does,
   * refused while an instance of any version is alive (ACTIVE or INCIDENT)
   * or a timer start event of it is armed: the partition leaders hold those
   * in memory and would go on running a model that no longer exists. An
   * instance started in the moment between the check and the delete keeps
   * running on its compiled model.
   */
  async function deleteProcess(account: string, bpmnProcessId: string): Promise<RemoveOutcome> {
    return processes.remove(account, bpmnProcessId, async (tx) => {
      const [live] = await tx
        .select({ key: instances.key })
        .from(instances)
        .where(and(eq(instances.account, account), eq(instances.bpmnProcessId, bpmnProcessId), inArray(instances.state, ['ACTIVE', 'INCIDENT'])))
        .limit(1);
      if (live) return `Process '${bpmnProcessId}' has active instances (e.g. ${live.key}); cancel or finish them first.`;
      const [armed] = await tx
        .select({ key: timers.key })
        .from(timers)
        .where(and(eq(timers.account, account), eq(timers.bpmnProcessId, bpmnProcessId), isNull(timers.instanceKey)))
        .limit(1);
      if (armed) return `Process '${bpmnProcessId}' has an armed timer start event; deleting such a process is not supported yet.`;
      return null;
    });
  }

  return guarded({ deployProcesses, deployProcess, latestProcess, getProcessVersion, listProcessVersions, listProcesses, deleteProcess });
}
