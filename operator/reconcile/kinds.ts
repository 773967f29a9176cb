// The two resources the operator reconciles (orca.dev/v1alpha1
// ProcessDefinition and DecisionDefinition): their paths, which spec field
// holds the model and which names its id, and how each reaches Orca through
// the client library (BPMN to process definitions, DMN to models).
import type { OrcaClient } from '../../client/index.ts';
import type { KubeObject } from '../kube/api-client.ts';

export const GROUP = 'orca.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;
export const FINALIZER = 'orca.dev/cleanup';
export const REDEPLOY_ANNOTATION = 'orca.dev/redeploy';
/** The CRD's cap on an inline model: kubectl's client-side apply fails on objects over 256 KiB. */
export const MAX_INLINE_BYTES = 204_800;

export interface SecretKeyRef {
  name: string;
  key?: string;
}

export interface DefinitionSpec {
  bpmnXml?: string;
  dmnXml?: string;
  configMapRef?: { name: string; key: string };
  processId?: string;
  decisionId?: string;
  apiKeySecretRef?: SecretKeyRef;
  deletionPolicy?: 'Retain' | 'Delete';
}

export interface Condition {
  type: 'Ready' | 'Reconciling' | 'Stalled';
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export interface DefinitionStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  sourceChecksum?: string;
  deployedChecksum?: string;
  processId?: string;
  decisionIds?: string[];
  version?: number;
  deployedAt?: string;
  redeployToken?: string;
  error?: { code: string; message: string };
}

export interface Definition extends KubeObject {
  spec: DefinitionSpec;
  status?: DefinitionStatus;
}

/** What a deploy of one model answered, reduced to what the status records. */
export interface Deployed {
  /** The ids the model defines (processes, or decisions), first the one the status names. */
  ids: string[];
  /** The engine's version of the named id. */
  version: number;
}

export interface Kind {
  kind: 'ProcessDefinition' | 'DecisionDefinition';
  plural: 'processdefinitions' | 'decisiondefinitions';
  /** The spec field with the inline model. */
  xmlField: 'bpmnXml' | 'dmnXml';
  /** The spec field naming the model's id. */
  idField: 'processId' | 'decisionId';
  /** The label in deploys_total{kind}. */
  metricKind: 'bpmn' | 'dmn';
  extension: '.bpmn' | '.dmn';
  /** Ids the model defines, read from the XML before deploying (Orca validates the rest). */
  idsInModel(xml: string): string[];
  deploy(client: OrcaClient, name: string, xml: string, idempotencyKey: string, wanted: string | undefined): Promise<Deployed>;
  /** Whether Orca still has `version` of `id` with this checksum (drift when not). */
  hasVersion(client: OrcaClient, id: string, version: number, checksum: string): Promise<boolean>;
  remove(client: OrcaClient, id: string): Promise<void>;
}

function attributeIds(xml: string, element: string): string[] {
  const pattern = new RegExp(`<(?:[\\w.-]+:)?${element}\\b[^>]*?\\sid\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, 'g');
  return [...xml.matchAll(pattern)].map((m) => m[1] ?? m[2]);
}

/** Puts the wanted id first when the model has it. */
function named(ids: string[], wanted: string | undefined): string[] {
  return wanted === undefined || !ids.includes(wanted) ? ids : [wanted, ...ids.filter((id) => id !== wanted)];
}

async function notFoundAsFalse(check: Promise<boolean>): Promise<boolean> {
  try {
    return await check;
  } catch (error) {
    if ((error as { status?: number }).status === 404) return false;
    throw error;
  }
}

export const PROCESS_DEFINITION: Kind = {
  kind: 'ProcessDefinition',
  plural: 'processdefinitions',
  xmlField: 'bpmnXml',
  idField: 'processId',
  metricKind: 'bpmn',
  extension: '.bpmn',
  idsInModel: (xml) => attributeIds(xml, 'process'),
  async deploy(client, name, xml, idempotencyKey, wanted) {
    const answer = await client.deploy({ name: `${name}.bpmn`, content: xml }, { idempotencyKey });
    if (answer.kind !== 'process') throw new Error('a BPMN deploy answered as a decision');
    const ids = named(
      answer.deployments.map((d) => d.bpmnProcessId),
      wanted,
    );
    return { ids, version: answer.deployments.find((d) => d.bpmnProcessId === ids[0])!.version };
  },
  hasVersion: (client, id, version, checksum) =>
    notFoundAsFalse(client.getProcessDefinition(id).then((d) => d.deployments.some((v) => v.version === version && v.checksum === checksum))),
  remove: (client, id) => client.deleteProcessDefinition(id),
};

export const DECISION_DEFINITION: Kind = {
  kind: 'DecisionDefinition',
  plural: 'decisiondefinitions',
  xmlField: 'dmnXml',
  idField: 'decisionId',
  metricKind: 'dmn',
  extension: '.dmn',
  idsInModel: (xml) => attributeIds(xml, 'decision'),
  async deploy(client, name, xml, idempotencyKey, wanted) {
    const answer = await client.deploy({ name: `${name}.dmn`, content: xml }, { idempotencyKey });
    if (answer.kind !== 'decision') throw new Error('a DMN deploy answered as a process');
    const ids = named(
      answer.decisions.map((d) => d.decisionId),
      wanted,
    );
    return { ids, version: answer.decisions.find((d) => d.decisionId === ids[0])!.version };
  },
  // Orca answers a decision's latest version only: ours is gone when the id is, or when
  // the latest is older than ours or the same number with other content (deleted and redeployed).
  hasVersion: (client, id, version, checksum) =>
    notFoundAsFalse(client.getDecision(id).then((d) => d.version > version || (d.version === version && d.checksum === checksum))),
  remove: (client, id) => client.deleteDecision(id),
};

export const KINDS = [PROCESS_DEFINITION, DECISION_DEFINITION] as const;
