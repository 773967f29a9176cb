// The compiled model: what engine/model produces from BPMN XML and what
// engine/runtime executes. Plain, JSON-serialisable data (no functions), so a
// compiled model can be cached, logged or shipped between processes as is.
// FEEL appears as source text without the leading '='; engine/feel compiles
// and caches it on first use.

/** A value that is either fixed in the model or computed by FEEL at run time (`="…"` in the XML). */
export type ValueExpr = { kind: 'literal'; value: string } | { kind: 'feel'; source: string };

export type ElementType =
  | 'startEvent'
  | 'endEvent'
  | 'intermediateCatchEvent'
  | 'intermediateThrowEvent'
  | 'boundaryEvent'
  | 'task'
  | 'manualTask'
  | 'serviceTask'
  | 'sendTask'
  | 'scriptTask'
  | 'userTask'
  | 'receiveTask'
  | 'businessRuleTask'
  | 'exclusiveGateway'
  | 'parallelGateway'
  | 'inclusiveGateway'
  | 'eventBasedGateway'
  | 'subProcess'
  | 'adHocSubProcess'
  | 'callActivity';

export type EventDefinitionKind = 'none' | 'message' | 'timer' | 'error' | 'escalation' | 'signal' | 'terminate' | 'link' | 'compensate' | 'conditional';

export interface TimerDefinition {
  type: 'duration' | 'date' | 'cycle';
  expr: ValueExpr;
}

export interface EventDefinition {
  kind: EventDefinitionKind;
  /** message: the referenced bpmn:message's name (may itself be `=FEEL`). */
  messageName?: ValueExpr;
  /** message: zeebe:subscription correlationKey (FEEL source). */
  correlationKey?: string;
  timer?: TimerDefinition;
  /** error: the bpmn:error's errorCode; undefined on a catch means "catch all". */
  errorCode?: string;
  /** error end: an `errorMessage` if the bpmn:error carries a name. */
  errorName?: string;
  escalationCode?: string;
  signalName?: string;
  linkName?: string;
}

/** zeebe:input / zeebe:output: `source` is FEEL source (leading '=' removed), `target` a variable name or path. */
export interface IoMapping {
  source: string;
  target: string;
}

/** Everything needed to create a job for a wait state. */
export interface JobDefinition {
  /** Job type. For waits SPEC.md names (script, user, receive, message catch) the compiler fills it in. */
  type: ValueExpr;
  /** Retries; default 3 as in Camunda 8. */
  retries: ValueExpr;
  /** zeebe:taskHeaders, plus engine-provided headers (for example the script expression). */
  headers: Record<string, string>;
  /** Message waits (receive tasks, message catch events): the message, evaluated when the job is created. */
  message?: { name: ValueExpr; correlationKey?: string };
}

export interface LoopDefinition {
  sequential: boolean;
  /** FEEL source of the input collection. */
  inputCollection?: string;
  inputElement?: string;
  outputCollection?: string;
  /** FEEL source of the output element. */
  outputElement?: string;
  /** FEEL source of the completion condition. */
  completionCondition?: string;
  /** Classic BPMN loopCardinality (FEEL), when given instead of a collection. */
  loopCardinality?: string;
}

/** An ad-hoc subprocess (Zeebe 8.8): zeebe:adHoc, bpmn:completionCondition, cancelRemainingInstances. */
export interface AdHocDefinition {
  /** Inner elements a path may start at: those with no incoming sequence flow (boundary events and event subprocesses aside). */
  activatable: string[];
  /** FEEL source: the ids of the inner elements to activate when the subprocess is entered (BPMN implementation). */
  activeElementsCollection?: string;
  /** FEEL source, checked each time an inner path completes (BPMN implementation). */
  completionCondition?: string;
  /** Whether inner paths still active are terminated when the subprocess completes; default true. */
  cancelRemainingInstances: boolean;
  outputCollection?: string;
  /** FEEL source, evaluated in each completed inner path's scope and appended to outputCollection. */
  outputElement?: string;
}

export interface CalledElement {
  processId: ValueExpr;
  propagateAllChildVariables: boolean;
  propagateAllParentVariables: boolean;
}

export interface CalledDecision {
  decisionId: ValueExpr;
  resultVariable: string;
}

export interface ScriptDefinition {
  /** FEEL source of zeebe:script expression. */
  expression: string;
  resultVariable?: string;
}

export interface FlowNode {
  id: string;
  name?: string;
  type: ElementType;
  /** Id of the enclosing subProcess, or null at process level. */
  parent: string | null;
  /** Sequence flow ids, in document order. */
  incoming: string[];
  outgoing: string[];
  /** Default sequence flow id (gateways and activities). */
  defaultFlow?: string;
  /** Events only: the (single) event definition; 'none' when there is none. */
  eventDefinition?: EventDefinition;
  /** Job-based waits (service, send, script, user, receive, job business-rule tasks, message catch events). */
  job?: JobDefinition;
  inputs: IoMapping[];
  outputs: IoMapping[];
  /** Boundary event ids attached to this activity. */
  boundaryEvents: string[];
  /** Boundary events: the activity they are attached to, and whether they interrupt it. */
  attachedTo?: string;
  cancelActivity?: boolean;
  /** Start events of an event subprocess: whether they interrupt the enclosing scope. */
  isInterrupting?: boolean;
  /** subProcess: true for an event subprocess. */
  triggeredByEvent?: boolean;
  /** Containers (subProcess): ids of the child flow nodes, and of its start events. */
  children?: string[];
  startEvents?: string[];
  /** Containers: ids of event subprocesses directly inside. */
  eventSubProcesses?: string[];
  calledElement?: CalledElement;
  calledDecision?: CalledDecision;
  script?: ScriptDefinition;
  loop?: LoopDefinition;
  /** adHocSubProcess only; with `job` too, the job worker implementation (a job each time it needs a decision). */
  adHoc?: AdHocDefinition;
  /**
   * Inclusive join gateways only: ids of flow nodes in the same scope from
   * which a token can still reach this gateway (without passing through it).
   * The join fires once no active token sits on any of them.
   */
  upstream?: string[];
}

export interface SequenceFlow {
  id: string;
  name?: string;
  sourceRef: string;
  targetRef: string;
  /** FEEL source of the condition, without '='. */
  condition?: string;
}

export interface ProcessModel {
  id: string;
  name?: string;
  isExecutable: boolean;
  /** Every flow node of the process, nested ones included, by id. */
  elements: Record<string, FlowNode>;
  flows: Record<string, SequenceFlow>;
  /** Process-level start event ids (event subprocess starts excluded). */
  startEvents: string[];
  /** The process-level none start event, if there is one. */
  noneStartEvent?: string;
  /** Ids of event subprocesses at process level. */
  eventSubProcesses: string[];
  /**
   * Extension, a deploy option stored with the version (never set by the
   * compiler): script tasks with a zeebe:script expression are evaluated
   * inline, as Zeebe does, instead of waiting as `script:` jobs.
   */
  inlineScripts?: boolean;
}

export interface CompiledModel {
  /** Executable processes, in document order. */
  processes: ProcessModel[];
  /** Ids of processes present but not executable. */
  nonExecutableProcesses: string[];
  /** Lanes and participants are descriptive; kept for the console. */
  lanes: { id: string; name?: string; processId: string; flowNodeRefs: string[] }[];
  participants: { id: string; name?: string; processRef?: string }[];
  /** Diagram interchange, kept raw (parsed XML objects) for later rendering. */
  diagram?: unknown;
  /** Non-fatal findings (for example non-executable processes ignored). */
  warnings: ModelWarning[];
}

export interface ModelProblem {
  /** The id of the element at fault, when there is one. */
  elementId?: string;
  /** A sentence a modeller understands. */
  message: string;
}

/** Something about a model that deploys but may not do what its author meant (camunda-differences.ts), with a code to tell them apart. */
export interface ModelWarning extends ModelProblem {
  code: string;
}

export type CompileResult = { ok: true; model: CompiledModel } | { ok: false; problems: ModelProblem[] };
