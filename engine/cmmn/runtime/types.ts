// The case runtime's data: the case instance document, the commands it
// accepts, and what applying one produces. Records and effects are the BPMN
// runtime's own (engine/runtime/types.ts), so whoever routes a process
// instance's jobs, timers and children routes a case's the same way: a job
// carries the case instance key where a process instance key would be.
import type { Effect, HistoryRecord, Incident, InstanceState, Job, RejectionCode, Variables } from '../../runtime/types.ts';
import type { TimerSchedule } from '../../timer/index.ts';
import type { CaseModel, PlanItemType } from '../types.ts';

/** CMMN 1.1's Stage and Task lifecycle; milestones and event listeners that occurred are COMPLETED. */
export type PlanItemState = 'AVAILABLE' | 'ENABLED' | 'DISABLED' | 'ACTIVE' | 'COMPLETED' | 'TERMINATED' | 'FAILED';

export interface PlanItemInstance {
  key: string;
  /** The plan item id in the model. */
  id: string;
  definitionId: string;
  type: PlanItemType;
  state: PlanItemState;
  /** Key of the stage instance that holds it; absent on the case plan model. */
  stageKey?: string;
  /** Sentry id → indexes of its on-parts that have happened (for this instance's criteria). */
  onParts?: Record<string, number[]>;
  jobKey?: string;
  timerKey?: string;
  /** Process and case tasks: the child instance it started. */
  childInstanceKey?: string;
  incidentKey?: string;
  createdAt: number;
  endedAt?: number;
}

export interface CaseTimer {
  key: string;
  /** The timer event listener's plan item id. */
  elementId: string;
  /** The listener instance it belongs to. */
  ownerKey: string;
  dueAt: number;
  schedule: TimerSchedule;
  firedCount: number;
  /** A job's timer (extensions): an activation timeout's deadline (with activationTimeout), else its retry back-off. */
  jobKey?: string;
  activationTimeout?: true;
}

export interface CaseInstance {
  key: string;
  caseDefinitionId: string;
  version: number;
  state: InstanceState;
  /** Every plan item instance, ended ones included (they are the case's visible history), by key. */
  planItems: Record<string, PlanItemInstance>;
  /** The case file. */
  variables: Variables;
  jobs: Record<string, Job>;
  incidents: Record<string, Incident>;
  timers: Record<string, CaseTimer>;
  /** Set on a case started by a case task. */
  parent?: { instanceKey: string; elementInstanceKey: string };
  depth?: number;
  startedAt: number;
  endedAt?: number;
}

export type CaseCommand =
  | {
      type: 'start';
      caseInstanceKey?: string;
      variables?: Variables;
      version?: number;
      parent?: { instanceKey: string; elementInstanceKey: string };
      depth?: number;
    }
  | { type: 'completeJob'; jobKey: string; variables?: Variables }
  /** `retryBackOff` (ms, extension): offer the job again after it instead of at once. */
  | { type: 'failJob'; jobKey: string; retries: number; errorMessage?: string; retryBackOff?: number }
  /** A worker activated the job with a timeout (extension, ms): it holds it until then. */
  | { type: 'holdJob'; jobKey: string; worker: string; timeout: number }
  /** Start an ENABLED plan item (manual activation). */
  | { type: 'startPlanItem'; planItemKey: string }
  | { type: 'disablePlanItem'; planItemKey: string }
  | { type: 'reenablePlanItem'; planItemKey: string }
  /** A user event listener occurs. */
  | { type: 'occur'; planItemKey: string }
  /** Complete an ACTIVE task or stage by hand (a non-blocking task's work, or a stage without autoComplete). */
  | { type: 'completePlanItem'; planItemKey: string; variables?: Variables }
  | { type: 'terminatePlanItem'; planItemKey: string }
  | { type: 'setVariables'; variables: Variables }
  | { type: 'fireTimer'; timerKey: string }
  /** From a child process or case: it completed. */
  | { type: 'childCompleted'; elementInstanceKey: string; variables: Variables }
  | { type: 'cancel' };

export interface CaseApplyContext {
  model: CaseModel;
  nextKey(): string;
  now(): number;
  /** Upper bound on plan item transitions one command may cause (guards sentry cycles). Default 10,000. */
  stepBudget?: number;
  /** Whether a BPMN process id is deployed (process tasks); absent → assumed. */
  hasProcess?: (bpmnProcessId: string) => boolean;
  /** Whether a case id is deployed (case tasks); absent → assumed. */
  hasCase?: (caseId: string) => boolean;
  /** Most instances one chain of case and process tasks may nest. Default 1,000. */
  maxCallDepth?: number;
}

export type CaseApplyResult =
  { ok: true; instance: CaseInstance; records: HistoryRecord[]; effects: CaseEffect[] } | { ok: false; code: RejectionCode; message: string };

/** The BPMN runtime's effects, plus starting a child case (a case task). */
export type CaseEffect =
  Effect | { type: 'startChildCase'; childInstanceKey: string; caseId: string; variables: Variables; parentElementInstanceKey: string; depth: number };
