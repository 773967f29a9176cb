// The shapes of the API answers the apps read (docs/api.md, the OpenAPI
// document): only the fields the pages use.
import type { ElementCounts } from './diagram.ts';

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface DefinitionSummary {
  bpmnProcessId: string;
  version: number;
  resourceName: string;
  deployedAt: string;
  latestVersion: number;
}

export interface DefinitionDetail extends DefinitionSummary {
  deployments: { bpmnProcessId: string; version: number; resourceName: string; deployedAt: string }[];
}

export interface InstanceSummary {
  processInstanceKey: string;
  bpmnProcessId: string;
  version: number;
  state: 'ACTIVE' | 'COMPLETED' | 'TERMINATED' | 'INCIDENT';
  variables: Record<string, unknown>;
  parentProcessInstanceKey: string | null;
  createdAt: string;
  endedAt: string | null;
}

export interface Incident {
  id: string;
  processInstanceKey: string;
  elementId: string;
  elementInstanceKey: string;
  type: string;
  message: string;
  state: 'OPEN' | 'RESOLVED';
  createdAt: string;
  resolvedAt: string | null;
}

export interface InstanceDetail extends InstanceSummary {
  activeElements: { elementInstanceKey: string; elementId: string; incidentKey: string | null }[];
  jobs: { key: string; type: string; elementId: string; retries: number; state: string }[];
  incidents: Record<string, unknown>[];
}

export interface DefinitionStatistics {
  bpmnProcessId: string;
  version: number;
  elements: ElementCounts[];
  /** The version's instances by state (ACTIVE, INCIDENT, COMPLETED, TERMINATED). */
  instances: { active: number; incidents: number; completed: number; canceled: number };
}

export interface InstanceStatistics {
  processInstanceKey: string;
  elements: ElementCounts[];
  sequenceFlows: { elementId: string; taken: number }[];
}

export interface HistoryItem {
  elementInstanceKey: string;
  elementId: string;
  elementType: string;
  state: string;
  startedAt: string;
  endedAt: string | null;
  flowScopeKey: string | null;
  calledProcessInstanceKey?: string | null;
}

export interface Task {
  id: string;
  elementId: string;
  elementInstanceKey: string;
  processInstanceKey: string;
  bpmnProcessId: string;
  version: number;
  assignee: string | null;
  state: 'CREATED' | 'FAILED';
  createdAt: string;
  variables?: Record<string, unknown>;
}

/** A completion that set variables (names only: values are not recorded). */
export interface VariableChange {
  at: string;
  elementId: string;
  elementInstanceKey: string;
  jobKey: string;
  variables: string[];
}

/** A completed human task (the completed-tasks extension routes). */
export interface CompletedTask {
  id: string;
  elementId: string;
  elementInstanceKey: string;
  processInstanceKey: string;
  bpmnProcessId: string;
  version: number;
  assignee: string | null;
  state: 'COMPLETED';
  createdAt: string;
  completedAt: string;
}
