// The deploy-time rules: every problem in an executable process, each with
// the element id and a sentence a modeller can act on. Nothing here stops at
// the first problem; compile.ts rejects the model when any were found.
import { feelSyntaxError } from '../feel/index.ts';
import { checkAdHoc } from './ad-hoc.ts';
import type { Findings } from './findings.ts';
import { taskDefinitionType } from './jobs.ts';
import { capitalize, lowerFirst, named } from './labels.ts';
import { ACTIVITIES, type NodeInfo, type ProcessRead } from './read-process.ts';
import { checkRuntimeRules, describeScope } from './runtime-rules.ts';
import { unsupportedMessage } from './support.ts';
import { BPMN_NS, BPMNDI_NS, ZEEBE_NS, type XmlElement } from './xml.ts';

/** Where each id lives, across all processes of the document. */
export type ProcessIndex = Map<string, string>;

const CAMUNDA7_ATTRIBUTES: readonly string[] = ['topic', 'class', 'delegateExpression', 'expression', 'type'];

function checkStartEvents(p: ProcessRead, findings: Findings): void {
  const noneStarts = (ids: string[]): string[] => ids.filter((id) => p.nodes.get(id)?.eventKind === 'none');
  if (p.startEvents.length === 0) {
    findings.problem(p.id, `Process '${p.id}' has no start event: add a none start event, which is how POST /api/v1/process-instances starts an instance.`);
  } else if (noneStarts(p.startEvents).length > 1) {
    findings.problem(
      p.id,
      `Process '${p.id}' has ${noneStarts(p.startEvents).length} none start events (${noneStarts(p.startEvents).join(', ')}); keep exactly one.`,
    );
  }
  for (const info of p.nodes.values()) {
    if ((info.kind !== 'subProcess' || info.node.triggeredByEvent) && info.kind !== 'transaction') continue;
    const starts = info.node.startEvents ?? [];
    const subject = named(info.kind, info.node.id);
    if (starts.length === 0) findings.problem(info.node.id, `${subject} has no start event: add a none start event inside it.`);
    else if (noneStarts(starts).length > 1)
      findings.problem(info.node.id, `${subject} has ${noneStarts(starts).length} none start events (${noneStarts(starts).join(', ')}); keep exactly one.`);
  }
}

function checkFlows(p: ProcessRead, index: ProcessIndex, findings: Findings): void {
  for (const { flow, container } of p.flows.values()) {
    const subject = `Sequence flow '${flow.id}'`;
    const ends: [string, 'sourceRef' | 'targetRef', string][] = [
      ['source', 'sourceRef', flow.sourceRef],
      ['target', 'targetRef', flow.targetRef],
    ];
    let ok = true;
    for (const [role, attr, ref] of ends) {
      if (ref === '') {
        findings.problem(flow.id, `${subject} has no ${role} (${attr} is missing).`);
        ok = false;
        continue;
      }
      const node = p.nodes.get(ref);
      if (!node) {
        const elsewhere = index.get(ref);
        findings.problem(
          flow.id,
          elsewhere !== undefined && elsewhere !== p.id
            ? `${subject} has ${role} '${ref}', which belongs to process '${elsewhere}'; a sequence flow cannot connect two processes.`
            : `${subject} has ${role} '${ref}', but there is no flow node with that id in process '${p.id}'.`,
        );
        ok = false;
      } else if (node.node.parent !== container) {
        findings.problem(
          flow.id,
          `${subject} is in ${describeScope(p, container)} but its ${role} '${ref}' is in ${describeScope(p, node.node.parent)}; a sequence flow cannot cross a subprocess boundary.`,
        );
        ok = false;
      }
    }
    if (!ok) continue;
    const source = p.nodes.get(flow.sourceRef) as NodeInfo;
    const target = p.nodes.get(flow.targetRef) as NodeInfo;
    if (target.kind === 'startEvent')
      findings.problem(flow.id, `${subject} leads into ${lowerFirst(named('startEvent', target.node.id))}; a start event cannot have incoming flows.`);
    if (target.kind === 'boundaryEvent')
      findings.problem(flow.id, `${subject} leads into ${lowerFirst(named('boundaryEvent', target.node.id))}; a boundary event cannot have incoming flows.`);
    if (source.kind === 'endEvent')
      findings.problem(flow.id, `${subject} leaves ${lowerFirst(named('endEvent', source.node.id))}; an end event cannot have outgoing flows.`);
    if (flow.condition !== undefined && source.kind !== 'exclusiveGateway' && source.kind !== 'inclusiveGateway') {
      findings.problem(
        flow.id,
        `${subject} has a condition, but it leaves ${lowerFirst(named(source.kind, source.node.id))}; Orca evaluates conditions only on flows leaving exclusive and inclusive gateways.`,
      );
    }
  }
}

function checkGateways(p: ProcessRead, findings: Findings): void {
  for (const info of p.nodes.values()) {
    const { node } = info;
    const subject = named(info.kind, node.id);
    if (node.defaultFlow !== undefined) {
      const flow = p.flows.get(node.defaultFlow)?.flow;
      if (!flow || flow.sourceRef !== node.id) {
        findings.problem(node.id, `${subject} names '${node.defaultFlow}' as its default flow, but that is not one of its outgoing sequence flows.`);
      } else if (flow.condition !== undefined) {
        findings.problem(
          node.id,
          `${subject} has default flow '${flow.id}' with a condition; a default flow is taken when no condition holds, so it must not have one.`,
        );
      }
    }
    if ((info.kind === 'exclusiveGateway' || info.kind === 'inclusiveGateway') && node.outgoing.length > 1) {
      const unconditioned = node.outgoing.filter((id) => {
        const flow = p.flows.get(id);
        return id !== node.defaultFlow && flow?.flow.condition === undefined && !flow?.foreignCondition;
      });
      if (unconditioned.length > 0) {
        const list = unconditioned.map((id) => `'${id}'`).join(', ');
        findings.problem(
          node.id,
          `${subject} has ${node.outgoing.length} outgoing flows, but ${unconditioned.length === 1 ? 'flow' : 'flows'} ${list} ${unconditioned.length === 1 ? 'has' : 'have'} no condition and ${unconditioned.length === 1 ? 'is' : 'are'} not the default flow; add a condition or mark one flow as default.`,
        );
      }
    }
  }
}

function checkBoundaryEvents(p: ProcessRead, findings: Findings): void {
  for (const info of p.nodes.values()) {
    if (info.kind !== 'boundaryEvent') continue;
    const { node } = info;
    const subject = named('boundaryEvent', node.id);
    const hostId = node.attachedTo;
    if (hostId === undefined || hostId === '') {
      findings.problem(node.id, `${subject} is not attached to an activity (attachedToRef is missing).`);
      continue;
    }
    const host = p.nodes.get(hostId);
    if (!host) findings.problem(node.id, `${subject} is attached to '${hostId}', but there is no activity with that id in process '${p.id}'.`);
    else if (!ACTIVITIES.has(host.kind))
      findings.problem(node.id, `${subject} is attached to ${lowerFirst(named(host.kind, hostId))}; boundary events can only be attached to activities.`);
    else if (host.node.parent !== node.parent)
      findings.problem(node.id, `${subject} is in ${describeScope(p, node.parent)} but its activity '${hostId}' is in ${describeScope(p, host.node.parent)}.`);
  }
}

/** Camunda 7 / Activiti implementation attributes on the task, most telling first. */
function camunda7Hint(info: NodeInfo): string | undefined {
  const found = (info.el.nsAttrs ?? []).filter((a) => a.ns !== ZEEBE_NS && a.ns !== BPMN_NS && CAMUNDA7_ATTRIBUTES.includes(a.local));
  if (found.length === 0) return undefined;
  found.sort((a, b) => CAMUNDA7_ATTRIBUTES.indexOf(a.local) - CAMUNDA7_ATTRIBUTES.indexOf(b.local));
  return found.map((a) => `${a.prefix}:${a.local}`).join(', ');
}

function checkTasks(p: ProcessRead, findings: Findings): void {
  for (const info of p.nodes.values()) {
    const { node, kind } = info;
    const subject = named(kind, node.id);
    const messageThrow = (kind === 'intermediateThrowEvent' || kind === 'endEvent') && info.eventKind === 'message';
    if ((kind === 'serviceTask' || kind === 'sendTask' || messageThrow) && taskDefinitionType(info.zeebe) === undefined) {
      const hint = camunda7Hint(info);
      findings.problem(
        node.id,
        hint !== undefined
          ? `${subject} has no job type: it is configured with Camunda 7 attributes (${hint}), but Orca reads <zeebe:taskDefinition type="…"/> in its extensionElements.`
          : `${subject} has no job type: add <zeebe:taskDefinition type="…"/> to its extensionElements.`,
      );
    }
    if (kind === 'businessRuleTask' && !info.zeebe.calledDecision && taskDefinitionType(info.zeebe) === undefined) {
      findings.problem(
        node.id,
        `${subject} needs either <zeebe:calledDecision decisionId="…" resultVariable="…"/> or <zeebe:taskDefinition type="…"/> in its extensionElements.`,
      );
    }
    if (kind === 'receiveTask' && info.messageName === undefined) {
      findings.problem(node.id, `${subject} has no message: reference a bpmn:message with a name (messageRef); its job type is message:<message name>.`);
    }
  }
}

function checkSupport(p: ProcessRead, findings: Findings): void {
  for (const info of p.nodes.values()) {
    const { node } = info;
    const message = unsupportedMessage(
      {
        kind: info.kind,
        eventKind: info.eventKind,
        scope: info.scope,
        nonInterrupting: node.cancelActivity === false || node.isInterrupting === false,
        eventSubProcess: node.triggeredByEvent === true,
        calledDecision: info.zeebe.calledDecision !== undefined,
        multiInstance: info.multiInstance,
        standardLoop: info.standardLoop,
        compensationHandler: info.compensationHandler,
      },
      node.id,
    );
    if (message !== undefined) findings.problem(node.id, message);
  }
}

/** All structural rules for one executable process. */
export function validateProcess(p: ProcessRead, index: ProcessIndex, findings: Findings): void {
  for (const id of p.duplicateIds) findings.problem(id, `The id '${id}' is used by more than one element in process '${p.id}'; ids must be unique.`);
  checkStartEvents(p, findings);
  checkFlows(p, index, findings);
  checkGateways(p, findings);
  checkBoundaryEvents(p, findings);
  checkTasks(p, findings);
  checkSupport(p, findings);
  checkAdHoc(p, findings);
  checkRuntimeRules(p, findings);
}

/** Long expressions (prompts, JSON) are shown on one line and cut, so the message stays readable. */
function abbreviate(source: string, max = 120): string {
  const line = source.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** Runs the queued FEEL syntax checks. */
export function checkFeel(findings: Findings): void {
  for (const check of findings.feel) {
    const error = feelSyntaxError(check.source);
    if (error !== undefined) {
      findings.problem(check.elementId, `${capitalize(check.what)} is not valid FEEL: \`${abbreviate(check.source)}\` (${error}).`);
    }
  }
}

function ownerLabel(el: XmlElement, id: string): string {
  return el.ns === BPMN_NS ? named(el.local, id) : `Element '${id}'`;
}

/**
 * SPEC.md requires the zeebe namespace on the enclosing definitions element.
 * Walks the semantic part of the document (diagram interchange never carries
 * zeebe) and reports each element, by its nearest id, that uses zeebe:
 * elements or attributes while definitions lacks the declaration.
 */
export function checkZeebeDeclaration(definitions: XmlElement, findings: Findings): void {
  const declared = Object.values(definitions.xmlns ?? {}).includes(ZEEBE_NS);
  if (declared) return;
  const reported = new Set<string>();
  const fix = `add xmlns:zeebe="${ZEEBE_NS}" to the definitions element`;
  const visit = (el: XmlElement, owner: { id: string; el: XmlElement } | undefined): void => {
    const id = el.ns === BPMN_NS ? el.attrs.id : undefined;
    const here = id !== undefined && id !== '' ? { id, el } : owner;
    const usesZeebe = el.ns === ZEEBE_NS ? el.qname : el.nsAttrs?.find((a) => a.ns === ZEEBE_NS);
    if (usesZeebe !== undefined) {
      const used = typeof usesZeebe === 'string' ? usesZeebe : `${usesZeebe.prefix}:${usesZeebe.local}`;
      const key = here?.id ?? '';
      if (!reported.has(key)) {
        reported.add(key);
        findings.problem(
          here?.id,
          `${here ? ownerLabel(here.el, here.id) : 'The model'} uses ${used}, but the Camunda 8 namespace is not declared on the definitions element: ${fix}.`,
        );
      }
    }
    for (const c of el.children) if (c.ns !== BPMNDI_NS) visit(c, here);
  };
  visit(definitions, undefined);
}
