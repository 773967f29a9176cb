// One bpmn:process → flow nodes and sequence flows, nested subprocesses
// included, with every field of FlowNode filled in: parent, incoming and
// outgoing flows (document order of the sequenceFlow elements), boundary
// events, containers' children, events' definitions, zeebe extensions, io
// mappings, loops and job definitions. Reading records what it cannot resolve
// (unknown message, missing mapping target, …) and queues FEEL for checking;
// the structural rules live in validate.ts.
import { readAdHoc } from './ad-hoc.ts';
import { readEvent, resolveMessage, type Catalog } from './events.ts';
import { feelSource, isFeel, mappingSource, valueExpr } from './expressions.ts';
import { Findings } from './findings.ts';
import { messageCatchJob, receiveTaskJob, scriptJob, taskDefinitionJob, userTaskJob } from './jobs.ts';
import { ACTIVITIES, EVENT_ELEMENTS, GATEWAYS, lowerFirst, named } from './labels.ts';
import { readZeebe, type ZeebeExtensions } from './read-zeebe.ts';
import type { CompiledModel, ElementType, FlowNode, IoMapping, LoopDefinition, SequenceFlow } from './types.ts';
import { BPMN_NS, bpmnChild, type XmlElement } from './xml.ts';

export type ScopeKind = 'process' | 'subProcess' | 'eventSubProcess';

export interface NodeInfo {
  node: FlowNode;
  /** BPMN local name; wider than ElementType (adHocSubProcess, complexGateway, …) so unsupported kinds can be named. */
  kind: string;
  el: XmlElement;
  /** Position in the document, for stable ordering. */
  order: number;
  /** Kind of the container the node sits in. */
  scope: ScopeKind;
  /** Events: 'none', an event definition kind, 'cancel' or 'multiple'. */
  eventKind?: string;
  multiInstance: boolean;
  standardLoop: boolean;
  compensationHandler: boolean;
  zeebe: ZeebeExtensions;
  /** Receive tasks: the referenced message's name as written. */
  messageName?: string;
}

export interface FlowInfo {
  flow: SequenceFlow;
  /** A condition in a language other than FEEL: reported, and still counted as a condition by the gateway rule. */
  foreignCondition?: boolean;
  /** Id of the enclosing subprocess, or null at process level. */
  container: string | null;
  el: XmlElement;
}

export type Lane = CompiledModel['lanes'][number];

export interface ProcessRead {
  id: string;
  name?: string;
  isExecutable: boolean;
  nodes: Map<string, NodeInfo>;
  flows: Map<string, FlowInfo>;
  /** Direct children of the process, document order. */
  topLevel: string[];
  startEvents: string[];
  eventSubProcesses: string[];
  lanes: Lane[];
  /** Ids used twice inside this process. */
  duplicateIds: string[];
  findings: Findings;
}

export { ACTIVITIES, GATEWAYS } from './labels.ts';

const CONTAINERS: ReadonlySet<string> = new Set(['subProcess', 'adHocSubProcess', 'transaction']);

/** Descriptive or structural children of a process or subprocess that carry no flow semantics. */
const DESCRIPTIVE: ReadonlySet<string> = new Set([
  'documentation',
  'extensionElements',
  'laneSet',
  'ioSpecification',
  'ioBinding',
  'property',
  'dataObject',
  'dataObjectReference',
  'dataStoreReference',
  'textAnnotation',
  'association',
  'group',
  'category',
  'auditing',
  'monitoring',
  'correlationSubscription',
  'supports',
  'multiInstanceLoopCharacteristics',
  'standardLoopCharacteristics',
  'incoming',
  'outgoing',
  'dataInputAssociation',
  'dataOutputAssociation',
  'resourceRole',
  'performer',
  'humanPerformer',
  'potentialOwner',
  'completionCondition',
]);

const FEEL_LANGUAGE = /feel/i;

interface ReadContext {
  processId: string;
  catalog: Catalog;
  findings: Findings;
  nodes: Map<string, NodeInfo>;
  flows: Map<string, FlowInfo>;
  lanes: Lane[];
  duplicateIds: string[];
  order: number;
}

interface ContainerOut {
  children: string[];
  startEvents: string[];
  eventSubProcesses: string[];
}

function claimId(ctx: ReadContext, id: string): boolean {
  if (ctx.nodes.has(id) || ctx.flows.has(id)) {
    ctx.duplicateIds.push(id);
    return false;
  }
  return true;
}

function readMappings(list: ZeebeExtensions['inputs'], direction: 'input' | 'output', owner: string, subject: string, findings: Findings): IoMapping[] {
  const out: IoMapping[] = [];
  for (const m of list) {
    if (m.target === undefined || m.target.trim() === '') {
      findings.problem(owner, `${subject} has an ${direction} mapping without a target variable.`);
      continue;
    }
    const { source, isExpression } = mappingSource(m.source);
    if (isExpression) findings.checkFeel(owner, `the ${direction} mapping '${m.target}' of ${lowerFirst(subject)}`, source);
    out.push({ source, target: m.target });
  }
  return out;
}

function readLoop(el: XmlElement, info: NodeInfo, subject: string, findings: Findings): void {
  const mi = bpmnChild(el, 'multiInstanceLoopCharacteristics');
  if (bpmnChild(el, 'standardLoopCharacteristics')) info.standardLoop = true;
  if (!mi) return;
  info.multiInstance = true;
  const loop: LoopDefinition = { sequential: mi.attrs.isSequential === 'true' };
  const z = readZeebe(mi).loopCharacteristics;
  const id = info.node.id;
  const feel = (raw: string | undefined, what: string): string | undefined => {
    if (raw === undefined || raw.trim() === '') return undefined;
    const source = feelSource(raw);
    findings.checkFeel(id, `the ${what} of ${lowerFirst(subject)}`, source);
    return source;
  };
  const inputCollection = feel(z?.inputCollection, 'input collection');
  if (inputCollection !== undefined) loop.inputCollection = inputCollection;
  if (z?.inputElement) loop.inputElement = z.inputElement;
  if (z?.outputCollection) loop.outputCollection = z.outputCollection;
  const outputElement = feel(z?.outputElement, 'output element');
  if (outputElement !== undefined) loop.outputElement = outputElement;
  const completion = feel(z?.completionCondition ?? bpmnChild(mi, 'completionCondition')?.text, 'completion condition');
  if (completion !== undefined) loop.completionCondition = completion;
  const cardinality = feel(bpmnChild(mi, 'loopCardinality')?.text, 'loop cardinality');
  if (cardinality !== undefined) loop.loopCardinality = cardinality;
  info.node.loop = loop;
}

function checkValueFeel(raw: string | undefined, owner: string, what: string, findings: Findings): void {
  if (raw !== undefined && isFeel(raw)) findings.checkFeel(owner, what, feelSource(raw));
}

function readNode(el: XmlElement, id: string, parent: string | null, scope: ScopeKind, ctx: ReadContext): NodeInfo {
  const kind = el.local;
  const subject = named(kind, id);
  const ref = lowerFirst(subject);
  const { findings, catalog } = ctx;
  const node: FlowNode = { id, type: kind as ElementType, parent, incoming: [], outgoing: [], inputs: [], outputs: [], boundaryEvents: [] };
  if (el.attrs.name !== undefined && el.attrs.name !== '') node.name = el.attrs.name;
  const zeebe = readZeebe(el);
  const info: NodeInfo = { node, kind, el, order: ctx.order++, scope, multiInstance: false, standardLoop: false, compensationHandler: false, zeebe };

  node.inputs = readMappings(zeebe.inputs, 'input', id, subject, findings);
  node.outputs = readMappings(zeebe.outputs, 'output', id, subject, findings);

  if (EVENT_ELEMENTS.has(kind)) {
    const event = readEvent(el, { id, subject }, catalog, findings);
    info.eventKind = event.kind;
    node.eventDefinition = event.definition;
    if (kind === 'boundaryEvent') {
      if (el.attrs.attachedToRef !== undefined) node.attachedTo = el.attrs.attachedToRef;
      node.cancelActivity = el.attrs.cancelActivity !== 'false';
    }
    if (kind === 'startEvent' && scope === 'eventSubProcess') node.isInterrupting = el.attrs.isInterrupting !== 'false';
    if (kind === 'intermediateCatchEvent' && event.kind === 'message') {
      node.job = messageCatchJob(id, zeebe, event.definition?.messageName, event.definition?.correlationKey);
    }
    // Message throw and end events are jobs of their zeebe:taskDefinition type, like send tasks (as Zeebe runs them).
    if ((kind === 'intermediateThrowEvent' || kind === 'endEvent') && event.kind === 'message') {
      const job = taskDefinitionJob(zeebe);
      if (job) node.job = job;
      checkValueFeel(zeebe.taskDefinition?.type, id, `the job type of ${ref}`, findings);
      checkValueFeel(zeebe.taskDefinition?.retries, id, `the retries of ${ref}`, findings);
    }
  }

  if (ACTIVITIES.has(kind) || GATEWAYS.has(kind)) {
    if (el.attrs.default !== undefined && el.attrs.default !== '') node.defaultFlow = el.attrs.default;
  }

  if (ACTIVITIES.has(kind)) {
    readLoop(el, info, subject, findings);
    info.compensationHandler = el.attrs.isForCompensation === 'true';
  }

  switch (kind) {
    case 'serviceTask':
    case 'sendTask': {
      const job = taskDefinitionJob(zeebe);
      if (job) node.job = job;
      checkValueFeel(zeebe.taskDefinition?.type, id, `the job type of ${ref}`, findings);
      checkValueFeel(zeebe.taskDefinition?.retries, id, `the retries of ${ref}`, findings);
      break;
    }
    case 'businessRuleTask': {
      const decision = zeebe.calledDecision;
      if (decision) {
        node.calledDecision = { decisionId: valueExpr(decision.decisionId ?? ''), resultVariable: decision.resultVariable ?? '' };
        checkValueFeel(decision.decisionId, id, `the decision id of ${ref}`, findings);
      } else {
        const job = taskDefinitionJob(zeebe);
        if (job) node.job = job;
        checkValueFeel(zeebe.taskDefinition?.type, id, `the job type of ${ref}`, findings);
        checkValueFeel(zeebe.taskDefinition?.retries, id, `the retries of ${ref}`, findings);
      }
      break;
    }
    case 'scriptTask': {
      const script = zeebe.script;
      if (script) {
        if (script.expression === undefined || script.expression.trim() === '') {
          findings.problem(id, `${subject} has a zeebe:script without an expression.`);
        } else {
          node.script = { expression: feelSource(script.expression) };
          if (script.resultVariable !== undefined && script.resultVariable !== '') node.script.resultVariable = script.resultVariable;
          findings.checkFeel(id, `the script expression of ${ref}`, node.script.expression);
        }
      }
      node.job = scriptJob(id, node.name, zeebe);
      checkValueFeel(zeebe.taskDefinition?.retries, id, `the retries of ${ref}`, findings);
      break;
    }
    case 'userTask':
      node.job = userTaskJob(zeebe);
      break;
    case 'adHocSubProcess':
      readAdHoc(info, findings);
      checkValueFeel(zeebe.taskDefinition?.type, id, `the job type of ${ref}`, findings);
      checkValueFeel(zeebe.taskDefinition?.retries, id, `the retries of ${ref}`, findings);
      break;
    case 'receiveTask': {
      const message = resolveMessage(el.attrs.messageRef, { id, subject }, catalog, findings);
      if (message?.name !== undefined && message.name.trim() !== '') {
        info.messageName = message.name;
        node.job = receiveTaskJob(message.name, zeebe, message.correlationKey);
      }
      break;
    }
    case 'callActivity': {
      const called = zeebe.calledElement;
      const processId = called?.processId ?? el.attrs.calledElement;
      if (processId !== undefined) {
        node.calledElement = {
          processId: valueExpr(processId),
          propagateAllChildVariables: called?.propagateAllChildVariables !== 'false',
          propagateAllParentVariables: called?.propagateAllParentVariables !== 'false',
        };
        checkValueFeel(processId, id, `the called process id of ${ref}`, findings);
      }
      break;
    }
    default:
      break;
  }

  if (CONTAINERS.has(kind)) {
    const triggeredByEvent = kind === 'subProcess' && el.attrs.triggeredByEvent === 'true';
    if (kind === 'subProcess') node.triggeredByEvent = triggeredByEvent;
    // Register before the children so that ids stay in document order (parent first).
    ctx.nodes.set(id, info);
    const out: ContainerOut = { children: [], startEvents: [], eventSubProcesses: [] };
    readContainer(el, id, triggeredByEvent ? 'eventSubProcess' : 'subProcess', ctx, out);
    node.children = out.children;
    node.startEvents = out.startEvents;
    node.eventSubProcesses = out.eventSubProcesses;
  }
  return info;
}

function readFlow(el: XmlElement, id: string, container: string | null, ctx: ReadContext): void {
  const flow: SequenceFlow = { id, sourceRef: el.attrs.sourceRef ?? '', targetRef: el.attrs.targetRef ?? '' };
  if (el.attrs.name !== undefined && el.attrs.name !== '') flow.name = el.attrs.name;
  const info: FlowInfo = { flow, container, el };
  const condition = bpmnChild(el, 'conditionExpression');
  if (condition && condition.text.trim() !== '') {
    const language = condition.attrs.language;
    if (language !== undefined && language !== '' && !FEEL_LANGUAGE.test(language)) {
      info.foreignCondition = true;
      ctx.findings.problem(id, `Sequence flow '${id}' has a condition in ${language}; Orca evaluates conditions as FEEL (for example =amount > 100).`);
    } else {
      flow.condition = feelSource(condition.text);
      ctx.findings.checkFeel(id, `the condition of sequence flow '${id}'`, flow.condition);
    }
  }
  ctx.flows.set(id, info);
}

function readLanes(laneSet: XmlElement, ctx: ReadContext): void {
  for (const lane of laneSet.children) {
    if (lane.ns !== BPMN_NS || lane.local !== 'lane') continue;
    const entry: Lane = { id: lane.attrs.id ?? '', processId: ctx.processId, flowNodeRefs: [] };
    if (lane.attrs.name !== undefined && lane.attrs.name !== '') entry.name = lane.attrs.name;
    // Pushed before its child lanes, so the list is in document order.
    ctx.lanes.push(entry);
    for (const c of lane.children) {
      if (c.ns !== BPMN_NS) continue;
      if (c.local === 'flowNodeRef' && c.text !== '') entry.flowNodeRefs.push(c.text);
      else if (c.local === 'childLaneSet') readLanes(c, ctx);
    }
  }
}

function readContainer(container: XmlElement, parent: string | null, scope: ScopeKind, ctx: ReadContext, out: ContainerOut): void {
  for (const el of container.children) {
    if (el.ns !== BPMN_NS) continue;
    if (el.local === 'laneSet') {
      readLanes(el, ctx);
      continue;
    }
    if (DESCRIPTIVE.has(el.local)) continue;
    const id = el.attrs.id;
    if (id === undefined || id === '') {
      ctx.findings.problem(
        parent ?? ctx.processId,
        `A ${el.local} element in ${parent === null ? `process '${ctx.processId}'` : `subprocess '${parent}'`} has no id.`,
      );
      continue;
    }
    if (!claimId(ctx, id)) continue;
    if (el.local === 'sequenceFlow') {
      readFlow(el, id, parent, ctx);
      continue;
    }
    // Everything else with an id is treated as a flow node, so that BPMN
    // elements Orca does not know (choreographies, …) are named and rejected.
    const info = readNode(el, id, parent, scope, ctx);
    ctx.nodes.set(id, info);
    out.children.push(id);
    if (el.local === 'startEvent') out.startEvents.push(id);
    if (info.node.triggeredByEvent) out.eventSubProcesses.push(id);
  }
}

/**
 * Wires flows and boundary events to their nodes. References that are
 * unknown or cross a scope are left out here and reported by validate.ts.
 */
function link(ctx: ReadContext): void {
  for (const { flow, container } of ctx.flows.values()) {
    const source = ctx.nodes.get(flow.sourceRef);
    const target = ctx.nodes.get(flow.targetRef);
    if (!source || !target || source.node.parent !== container || target.node.parent !== container) continue;
    source.node.outgoing.push(flow.id);
    target.node.incoming.push(flow.id);
  }
  for (const info of ctx.nodes.values()) {
    const hostId = info.node.attachedTo;
    if (info.kind !== 'boundaryEvent' || hostId === undefined) continue;
    const host = ctx.nodes.get(hostId);
    if (host && ACTIVITIES.has(host.kind) && host.node.parent === info.node.parent) host.node.boundaryEvents.push(info.node.id);
  }
}

export function readProcess(el: XmlElement, catalog: Catalog): ProcessRead {
  const id = el.attrs.id ?? '';
  const ctx: ReadContext = { processId: id, catalog, findings: new Findings(), nodes: new Map(), flows: new Map(), lanes: [], duplicateIds: [], order: 0 };
  const out: ContainerOut = { children: [], startEvents: [], eventSubProcesses: [] };
  readContainer(el, null, 'process', ctx, out);
  link(ctx);
  const read: ProcessRead = {
    id,
    isExecutable: el.attrs.isExecutable === 'true',
    nodes: ctx.nodes,
    flows: ctx.flows,
    topLevel: out.children,
    startEvents: out.startEvents,
    eventSubProcesses: out.eventSubProcesses,
    lanes: ctx.lanes,
    duplicateIds: ctx.duplicateIds,
    findings: ctx.findings,
  };
  if (el.attrs.name !== undefined && el.attrs.name !== '') read.name = el.attrs.name;
  return read;
}
