// The runtime's data: the instance document, the commands it accepts, and
// what applying a command produces (history records and effects on the
// world). Everything here is plain JSON so the instance document can live in
// one JSONB column and records can be appended to history as they are.
import type { ProcessModel } from '../model/types.ts';
import type { TimerSchedule } from '../timer/index.ts';

export type Variables = Record<string, unknown>;

export type InstanceState = 'ACTIVE' | 'COMPLETED' | 'TERMINATED' | 'INCIDENT';

/** A token-carrying element instance that is still alive (waiting, or a container with children). */
export interface ElementInstance {
  key: string;
  elementId: string;
  /** Key of the flow scope: the enclosing subprocess instance, or the process instance key. */
  scopeKey: string;
  /** The job this element waits on, if any. */
  jobKey?: string;
  /**
   * Containers: tokens alive inside this scope (child element instances,
   * tokens on their way to a child, tokens waiting at a join).
   */
  children?: number;
  /** Set while the element is stuck on an incident. */
  incidentKey?: string;
  /** Call activities: the key of the child instance. */
  childInstanceKey?: string;
  /** Multi-instance: set on the body. */
  loop?: LoopState;
  /** Multi-instance: set on each inner instance (0-based index into the collection). */
  loopIndex?: number;
  /**
   * Ad-hoc subprocesses: set on the subprocess (`completing` once it only
   * waits for its remaining paths) and, with `inner`, on each inner instance:
   * the scope of one activated path, holding its activation variables.
   */
  adHoc?: { inner?: true; completing?: true };
  /** An error thrown here waits for the parent instance to say whether it catches it. */
  pendingError?: { errorCode: string; errorMessage?: string; variables?: Variables };
}

export interface LoopState {
  /** The input collection, or null when driven by a cardinality. */
  items: unknown[] | null;
  total: number;
  /** Index of the next inner instance to start (sequential). */
  next: number;
  completed: number;
}

export interface Timer {
  key: string;
  /** The timer event: a catch event, a boundary event, an event subprocess start event. */
  elementId: string;
  /** Who the subscription belongs to: the waiting catch event or event-based gateway, the boundary's host activity, or the scope of an event subprocess. */
  ownerKey: string;
  dueAt: number;
  schedule: TimerSchedule;
  firedCount: number;
  /** A failed job's retry back-off (extension): firing offers this job again. */
  jobKey?: string;
  /** With `jobKey`: the deadline of an activation with a timeout (extension), not a retry back-off. */
  activationTimeout?: true;
}

export type JobState = 'ACTIVATABLE' | 'FAILED';

export interface Job {
  key: string;
  type: string;
  retries: number;
  elementId: string;
  elementInstanceKey: string;
  customHeaders: Record<string, string>;
  state: JobState;
  errorMessage?: string;
  /** A message wait's message, as evaluated when the job was created. */
  message?: JobMessage;
  /** Extension: a worker activated the job with a timeout and holds it until its timer (`timerKey`) fires. */
  held?: { worker: string; at: number; timerKey: string };
}

/** Extension: which message a message wait's job stands for; the correlation key as evaluated when the wait began. */
export interface JobMessage {
  name: string;
  correlationKey?: string;
}

/**
 * Extension: a message wait with an evaluated name and correlation key
 * (Zeebe's message subscription). `elementId` is the message event (catch
 * event, receive task, boundary event, event subprocess start); `ownerKey`
 * who holds it: the waiting element instance, the boundary's host, the
 * event-based gateway, or the scope of an event subprocess.
 */
export interface MessageSubscription {
  key: string;
  name: string;
  correlationKey: string;
  elementId: string;
  ownerKey: string;
  /** Extension (signals, docs/signals.md): a signal wait; `name` is the signal name, `correlationKey` empty (signals have none). */
  signal?: true;
}

export type IncidentType =
  | 'JOB_NO_RETRIES'
  | 'CONDITION_ERROR'
  | 'EXTRACT_VALUE_ERROR'
  | 'IO_MAPPING_ERROR'
  | 'STEP_BUDGET_EXCEEDED'
  | 'UNHANDLED_ERROR_EVENT'
  | 'CALLED_ELEMENT_ERROR'
  | 'DECISION_EVALUATION_ERROR'
  /** The engine could not store what a command did to the instance; the instance was set aside (ProcessInstance.setAside). */
  | 'UNPROCESSABLE_COMMAND';

export interface Incident {
  key: string;
  type: IncidentType;
  elementId: string;
  elementInstanceKey: string;
  jobKey?: string;
  message: string;
  createdAt: number;
}

/** A published message that started an instance by a message start event (extension). */
export interface StartedByMessage {
  messageKey: string;
  name: string;
  correlationKey: string;
}

export interface ProcessInstance {
  key: string;
  bpmnProcessId: string;
  version: number;
  state: InstanceState;
  /** Tokens alive in the process scope (same accounting as ElementInstance.children). */
  children: number;
  /** Live element instances by key. */
  elements: Record<string, ElementInstance>;
  /** Variable scopes by scope key; the root scope's key is the instance key. */
  variables: Record<string, Variables>;
  /** Live jobs by key. */
  jobs: Record<string, Job>;
  /** Incidents raised on this instance (never removed: SPEC.md keeps the instance in INCIDENT). */
  incidents: Record<string, Incident>;
  /**
   * Tokens that arrived at a joining gateway and wait for the others, by
   * `${scopeKey}/${gatewayId}` → sequence flow id → count.
   */
  joins: Record<string, Record<string, number>>;
  /** Armed timers by key. */
  timers: Record<string, Timer>;
  /** Set on a child started by a call activity. */
  parent?: { instanceKey: string; elementInstanceKey: string };
  /** Call activities: how many instances are above this one (set on children only; absent means 0). */
  depth?: number;
  /**
   * Extension (signals): how many thrown signals led to this instance's
   * start, through signal start events (a call activity's child inherits
   * its parent's); absent means 0. A signal thrown at SIGNAL_START_GENERATIONS
   * (engine/limits.ts) starts no instances.
   */
  signalGeneration?: number;
  startedAt: number;
  endedAt?: number;
  /** Extension (messages): the message subscriptions open now, by key. Absent when none ever opened. */
  subscriptions?: Record<string, MessageSubscription>;
  /** Extension (messages, signals): keys of the messages and signals correlated to this instance, so none correlates twice. */
  correlatedMessages?: string[];
  /** Extension (messages): the message whose message start event started this instance (message-start-gate.ts). */
  startedByMessage?: StartedByMessage;
  /**
   * Why the engine set this instance aside: a command for it could not be
   * stored (Zeebe's banned instance). It takes no more commands but cancel.
   */
  setAside?: string;
}

export type Command =
  | {
      type: 'start';
      /** Key for the new instance; generated from ctx.nextKey() when absent. */
      processInstanceKey?: string;
      variables?: Variables;
      version?: number;
      /** Start at this start event (a timer start) instead of the none start event. */
      startEventId?: string;
      /** A child of a call activity. */
      parent?: { instanceKey: string; elementInstanceKey: string };
      /** A child of a call activity: its depth (the parent's plus one). */
      depth?: number;
      /** Extension (signals): the instance's signal generation (ProcessInstance.signalGeneration). */
      signalGeneration?: number;
      /** A message start event: the message that starts it (extension). */
      message?: StartedByMessage;
    }
  /** `result` (extension, Zeebe 8.8's job result): only for the job of an ad-hoc subprocess. */
  | { type: 'completeJob'; jobKey: string; variables?: Variables; result?: AdHocJobResult }
  /** `retryBackOff` (ms, extension): a job with retries left is offered again after it rather than at once. */
  | { type: 'failJob'; jobKey: string; retries: number; errorMessage?: string; retryBackOff?: number }
  /** A worker threw a BPMN error instead of completing its job (extension); the variables go where it is caught. */
  | { type: 'throwJobError'; jobKey: string; errorCode: string; errorMessage?: string; variables?: Variables }
  /** A worker activated the job with a timeout (extension, ms): it is offered again if neither completed nor failed by then. */
  | { type: 'holdJob'; jobKey: string; worker: string; timeout: number }
  | { type: 'cancel' }
  /** Activate inner elements of a running ad-hoc subprocess from outside (extension, Zeebe's activation API), each starting a path. */
  | { type: 'activateAdHocElements'; elementInstanceKey: string; elements: AdHocActivation[] }
  | { type: 'fireTimer'; timerKey: string }
  /** To a parent: its call activity's child completed with these variables. */
  | { type: 'childCompleted'; elementInstanceKey: string; variables: Variables }
  /** To a parent: an error its child did not catch, for the call activity and above to catch. */
  | {
      type: 'childError';
      elementInstanceKey: string;
      childInstanceKey: string;
      errorCode: string;
      errorMessage?: string;
      throwingElementInstanceKey: string;
      /** A worker-thrown error's variables, set where it is caught. */
      variables?: Variables;
    }
  /** To a parent: an escalation its child did not catch. */
  | { type: 'childEscalation'; elementInstanceKey: string; escalationCode: string }
  /** To a child: nobody above caught the error it threw. */
  | { type: 'errorUnhandled'; elementInstanceKey: string }
  /** Extension: a published message for one of the instance's subscriptions (by key, or the first matching name and correlation key). */
  | { type: 'correlateMessage'; messageKey: string; name: string; correlationKey: string; variables?: Variables; subscriptionKey?: string }
  /** Extension: a broadcast signal, for every open signal subscription of the instance with its name. */
  | { type: 'receiveSignal'; signalKey: string; name: string; variables?: Variables }
  /** The engine could not process a command for this instance: an incident at the element it addressed (or the process), and no more commands. */
  | { type: 'setAside'; message: string; elementInstanceKey?: string };

/** Extension (Zeebe 8.8's JobResultAdHocSubProcess): what the worker of an ad-hoc subprocess's job decided. */
/** An inner element of an ad-hoc subprocess to start a path at, with variables local to that path. */
export interface AdHocActivation {
  elementId: string;
  variables?: Variables;
}

export interface AdHocJobResult {
  type: 'adHocSubProcess';
  /** Inner elements to start a path at, each with variables local to that path. */
  activateElements?: AdHocActivation[];
  /** The subprocess completes (once the activations above are made). */
  isCompletionConditionFulfilled?: boolean;
  /** With isCompletionConditionFulfilled: terminate the paths still active (default false: wait for them). */
  isCancelRemainingInstances?: boolean;
}

/** Evaluates the latest deployed version of a decision (DMN); supplied by whoever holds the deployments. */
export type DecisionEvaluator = (decisionId: string, variables: Variables) => { ok: true; result: unknown } | { ok: false; error: string };

export interface ApplyContext {
  model: ProcessModel;
  /** A new unique key (a decimal string). */
  nextKey(): string;
  /** The current time, epoch milliseconds. */
  now(): number;
  /** Upper bound on element steps one command may take (guards cycles without a wait state). Default 10,000. */
  stepBudget?: number;
  /** Business-rule tasks with zeebe:calledDecision evaluate through this; absent → incident. */
  evaluateDecision?: DecisionEvaluator;
  /** Whether a process id is deployed (call activities); absent → assumed. */
  hasProcess?: (bpmnProcessId: string) => boolean;
  /**
   * Most process instances one chain of call activities may hold, the root
   * included; a call activity that would go deeper raises an incident, as
   * Camunda 8 does against endless recursion. Default 1,000.
   */
  maxCallDepth?: number;
}

export type RecordType =
  | 'PROCESS_INSTANCE_STARTED'
  | 'PROCESS_INSTANCE_COMPLETED'
  | 'PROCESS_INSTANCE_TERMINATED'
  | 'ELEMENT_ACTIVATED'
  | 'ELEMENT_COMPLETED'
  | 'ELEMENT_TERMINATED'
  | 'SEQUENCE_FLOW_TAKEN'
  | 'JOB_CREATED'
  | 'JOB_COMPLETED'
  | 'JOB_FAILED'
  | 'JOB_CANCELED'
  | 'INCIDENT_CREATED'
  | 'VARIABLES_UPDATED'
  | 'TIMER_CREATED'
  | 'TIMER_TRIGGERED'
  | 'TIMER_CANCELED'
  | 'ERROR_THROWN'
  | 'ESCALATION_THROWN'
  | 'DECISION_EVALUATED'
  /** Case instances (engine/cmmn): started, ended, and each plan item lifecycle transition. */
  | 'CASE_INSTANCE_STARTED'
  | 'CASE_INSTANCE_COMPLETED'
  | 'CASE_INSTANCE_TERMINATED'
  | 'PLAN_ITEM_TRANSITIONED'
  | 'MESSAGE_CORRELATED'
  | 'SIGNAL_RECEIVED';

export interface HistoryRecord {
  type: RecordType;
  at: number;
  elementId?: string;
  elementType?: string;
  elementInstanceKey?: string;
  jobKey?: string;
  incidentKey?: string;
  /** Free-form details: job type, incident message, variable names. */
  detail?: Record<string, unknown>;
}

/** A job as handed to the world (queue it so a worker can activate it). */
export interface JobOffer {
  key: string;
  type: string;
  retries: number;
  processInstanceKey: string;
  bpmnProcessId: string;
  processDefinitionVersion: number;
  elementId: string;
  elementInstanceKey: string;
  customHeaders: Record<string, string>;
  message?: JobMessage;
}

export type Effect =
  | { type: 'enqueueJob'; job: JobOffer }
  | { type: 'cancelJob'; jobKey: string; jobType: string }
  | { type: 'scheduleTimer'; timerKey: string; dueAt: number; elementId: string }
  | { type: 'cancelTimer'; timerKey: string }
  /** The job is held by a worker until its activation timeout (extension): stored as activated. */
  | { type: 'holdJob'; jobKey: string }
  /** Start a child instance of the latest deployed version of `bpmnProcessId` under this key, passing `depth` on in its start command. */
  | {
      type: 'startChild';
      childInstanceKey: string;
      bpmnProcessId: string;
      variables: Variables;
      parentElementInstanceKey: string;
      depth: number;
      /** The parent's signal generation, when above 0: a chain of signal starts through a call activity is still one chain. */
      signalGeneration?: number;
    }
  /** Extension: a message subscription opened (whoever holds buffered messages may correlate one now). */
  | { type: 'openSubscription'; subscription: MessageSubscription }
  | { type: 'closeSubscription'; subscription: MessageSubscription }
  /** Extension: a signal throw or end event broadcast `name` with these variables to every waiting subscription of the account. */
  | { type: 'throwSignal'; name: string; variables: Variables }
  /** Apply `command` to another instance (parent or child). */
  | { type: 'sendCommand'; instanceKey: string; command: Command };

export type RejectionCode = 'NOT_FOUND' | 'INVALID_STATE' | 'INVALID_ARGUMENT';

export type ApplyResult =
  { ok: true; instance: ProcessInstance; records: HistoryRecord[]; effects: Effect[] } | { ok: false; code: RejectionCode; message: string };
