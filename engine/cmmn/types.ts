// The compiled case model: what the CMMN compiler (compile-cmmn.ts) hands
// the case runtime. Plan items are flattened into one table keyed by their
// plan item id, each pointing at the stage that holds it, so the runtime
// never walks XML. Plain JSON, like the BPMN model.
import type { TimerSchedule } from '../timer/index.ts';
import type { ModelProblem, ModelWarning } from '../model/types.ts';

export type PlanItemType = 'stage' | 'humanTask' | 'processTask' | 'caseTask' | 'task' | 'milestone' | 'userEventListener' | 'timerEventListener';

/**
 * An item control rule: true/false when fixed (absent rule, or a constant
 * condition), or the FEEL source evaluated against the case file when it
 * applies (CMMN 1.1, PlanItemControl).
 */
export type Rule = boolean | { condition: string };

/** The standard events of plan item on-parts Orca raises (CMMN 1.1, PlanItemTransition). */
export type StandardEvent = 'create' | 'enable' | 'disable' | 'reenable' | 'start' | 'manualStart' | 'complete' | 'terminate' | 'exit' | 'occur' | 'fault';

export interface OnPart {
  /** The plan item id the on-part listens to. */
  sourceId: string;
  event: StandardEvent;
}

export interface Sentry {
  id: string;
  /** All must have happened (CMMN 1.1, Sentry: the on-parts of one sentry are a conjunction). */
  onParts: OnPart[];
  /** FEEL, evaluated against the case file when the last on-part happens (or, without on-parts, whenever the case file changes). */
  ifPart?: string;
}

export interface PlanItem {
  /** The plan item id (the casePlanModel id for the root stage). */
  id: string;
  name?: string;
  /** The id of the plan item definition (humanTask, stage, …) it instantiates. */
  definitionId: string;
  type: PlanItemType;
  /** Plan item id of the stage that holds it; undefined for the case plan model. */
  parentId?: string;
  /** Entry criteria (sentry ids): alternatives, any one fires it (CMMN 1.1, Sentry). Empty: it starts when created. */
  entry: string[];
  /** Exit criteria (sentry ids): any one terminates it and everything inside it. */
  exit: string[];
  required: Rule;
  manualActivation: Rule;
  repetition: Rule;
  /** Tasks: whether the task waits for its work (CMMN 1.1, Task isBlocking); a non-blocking one completes once started. */
  isBlocking: boolean;
  /** Process tasks: the BPMN process id it starts. */
  processRef?: string;
  /** Case tasks: the case id it starts. */
  caseRef?: string;
  /** Timer event listeners: when it occurs, counted from its creation. */
  timer?: TimerSchedule;
  /** Stages: plan item ids directly inside it, in document order. */
  children?: string[];
  /** Stages: complete when required items are done (CMMN 1.1, Stage autoComplete); otherwise when nothing inside is left to do. */
  autoComplete?: boolean;
}

export interface CaseModel {
  /** The case id (what a client starts). */
  id: string;
  name?: string;
  /** The case plan model's id: the root plan item. */
  rootId: string;
  planItems: Record<string, PlanItem>;
  sentries: Record<string, Sentry>;
  /** Plan items whose sentries listen to each plan item (for fast event routing). */
  listeners: Record<string, string[]>;
  /** Case file item names (the case file is the case's variables). */
  caseFileItems: string[];
}

export interface CompiledCmmn {
  cases: CaseModel[];
  warnings: ModelWarning[];
}

export type CompileCmmnResult = { ok: true; model: CompiledCmmn } | { ok: false; problems: ModelProblem[] };
