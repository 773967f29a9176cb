// Deploy-time rules for what engine/runtime takes for granted once a model is
// deployed: a call activity knows which process to call, a link throw has
// exactly one catch to jump to, a multi-instance activity has something to
// iterate over, a decision task knows its decision and where its result goes,
// an event-based gateway waits only on events the runtime can wait on, an
// event subprocess is entered only through its one start event, timers only
// repeat where the runtime repeats them, and a thrown error or escalation
// meets at most one catch per scope. Camunda 8 rejects each of these models at
// deploy as well; without these rules they would deploy and then stop with an
// incident or a crash, or silently do something else, at run time.
import type { Findings } from './findings.ts';
import { kindWords, lowerFirst, named, subjectOf } from './labels.ts';
import type { NodeInfo, ProcessRead } from './read-process.ts';

/** "process 'p'", "subprocess 'sub'". */
export function describeScope(p: ProcessRead, parent: string | null): string {
  if (parent === null) return `process '${p.id}'`;
  const container = p.nodes.get(parent);
  return container ? `${kindWords(container.kind)} '${parent}'` : `'${parent}'`;
}

function quoted(ids: readonly string[]): string {
  return ids.map((id) => `'${id}'`).join(', ');
}

function blank(text: string | undefined): boolean {
  return text === undefined || text.trim() === '';
}

function checkCallActivity(info: NodeInfo, findings: Findings): void {
  const { node } = info;
  const subject = named('callActivity', node.id);
  const processId = node.calledElement?.processId;
  if (processId === undefined) {
    findings.problem(node.id, `${subject} does not say which process to call: add <zeebe:calledElement processId="…"/> to its extensionElements.`);
  } else if (processId.kind === 'literal' && processId.value === '') {
    findings.problem(node.id, `${subject} has an empty processId in zeebe:calledElement: set it to the id of the process to call.`);
  }
}

function checkMultiInstance(info: NodeInfo, subject: string, findings: Findings): void {
  const loop = info.node.loop;
  if (loop === undefined) return;
  const id = info.node.id;
  if (loop.inputCollection === undefined && loop.loopCardinality === undefined) {
    findings.problem(
      id,
      `${subject} has no input collection: set inputCollection in <zeebe:loopCharacteristics>, the list with one item per instance (for example =items).`,
    );
  }
  if (loop.outputCollection !== undefined && loop.outputElement === undefined) {
    findings.problem(
      id,
      `${subject} has the output collection '${loop.outputCollection}' but no output element: set outputElement in <zeebe:loopCharacteristics>, the value each instance adds to the collection.`,
    );
  }
  if (loop.outputElement !== undefined && loop.outputCollection === undefined) {
    findings.problem(
      id,
      `${subject} has an output element but no output collection: set outputCollection in <zeebe:loopCharacteristics>, the variable that collects the values.`,
    );
  }
}

function checkCalledDecision(info: NodeInfo, findings: Findings): void {
  const decision = info.zeebe.calledDecision;
  if (decision === undefined) return;
  const subject = named('businessRuleTask', info.node.id);
  if (blank(decision.decisionId)) {
    findings.problem(info.node.id, `${subject} calls no decision: set decisionId in zeebe:calledDecision to the id of the DMN decision to evaluate.`);
  }
  if (blank(decision.resultVariable)) {
    findings.problem(
      info.node.id,
      `${subject} has no result variable: set resultVariable in zeebe:calledDecision, the variable that receives the decision's result.`,
    );
  }
}

function eventSubject(info: NodeInfo): string {
  const nonInterrupting = info.node.cancelActivity === false || info.node.isInterrupting === false;
  return `${subjectOf(info.kind, info.eventKind, nonInterrupting)} '${info.node.id}'`;
}

/** Where the runtime fires a timer once and where it repeats it: only non-interrupting events repeat a cycle. */
function checkTimerPosition(info: NodeInfo, findings: Findings): void {
  const type = info.node.eventDefinition?.timer?.type;
  if (type === undefined || info.eventKind !== 'timer') return;
  const subject = eventSubject(info);
  const { node, kind } = info;
  if (kind === 'startEvent' && info.scope === 'process') {
    if (type === 'duration') {
      findings.problem(
        node.id,
        `${subject} has a timer duration, which has nothing to count from before the process exists: give it a date (start once) or a cycle (start repeatedly).`,
      );
    }
    return;
  }
  if (type !== 'cycle') return;
  if (kind === 'intermediateCatchEvent') {
    findings.problem(node.id, `${subject} has a timer cycle, but the token waits for one firing only: give it a duration or a date.`);
  } else if (kind === 'boundaryEvent' && node.cancelActivity !== false) {
    findings.problem(
      node.id,
      `${subject} has a timer cycle, but it interrupts its activity at the first firing: give it a duration or a date, or make it non-interrupting to fire on every cycle.`,
    );
  } else if (kind === 'startEvent' && info.scope === 'eventSubProcess' && node.isInterrupting !== false) {
    findings.problem(
      node.id,
      `${subject} has a timer cycle, but it interrupts its scope at the first firing: give it a duration or a date, or make it non-interrupting to fire on every cycle.`,
    );
  }
}

/** Link throws jump to the one catch of the same name in their own scope (process or subprocess). */
function checkLinks(p: ProcessRead, findings: Findings): void {
  const catches = new Map<string, NodeInfo[]>();
  const throws: NodeInfo[] = [];
  for (const info of p.nodes.values()) {
    if (info.eventKind !== 'link') continue;
    if (info.kind === 'intermediateCatchEvent') {
      const name = info.node.eventDefinition?.linkName;
      if (blank(name)) {
        findings.problem(info.node.id, `${eventSubject(info)} has no link name: name its linkEventDefinition like the link throw events that jump to it.`);
        continue;
      }
      const key = `${info.node.parent ?? ''}\u0000${name}`;
      catches.set(key, [...(catches.get(key) ?? []), info]);
    } else if (info.kind === 'intermediateThrowEvent') {
      throws.push(info);
    }
  }
  for (const same of catches.values()) {
    if (same.length < 2) continue;
    const [first, ...others] = same;
    const name = first.node.eventDefinition?.linkName ?? '';
    for (const other of others) {
      findings.problem(
        other.node.id,
        `Link catch events '${first.node.id}' and '${other.node.id}' in ${describeScope(p, first.node.parent)} are both named '${name}', so a link throw event named '${name}' could not tell which to jump to; rename one.`,
      );
    }
  }
  for (const info of throws) {
    const { node } = info;
    const subject = eventSubject(info);
    const name = node.eventDefinition?.linkName;
    if (blank(name)) {
      findings.problem(node.id, `${subject} has no link name: name its linkEventDefinition like the link catch event it jumps to.`);
    } else if (!catches.has(`${node.parent ?? ''}\u0000${name}`)) {
      const elsewhere = [...catches.values()].flat().filter((c) => c.node.eventDefinition?.linkName === name);
      const hint =
        elsewhere.length > 0
          ? `; link catch event '${elsewhere[0].node.id}' has that name but is in ${describeScope(p, elsewhere[0].node.parent)}, and a link cannot cross a subprocess boundary`
          : '';
      findings.problem(
        node.id,
        `${subject} jumps to link '${name}', but there is no link catch event named '${name}' in ${describeScope(p, node.parent)}${hint}.`,
      );
    }
    if (node.outgoing.length > 0) {
      findings.problem(
        node.id,
        `${subject} has outgoing sequence flows (${quoted(node.outgoing)}), which no token would take: the token jumps to the link catch event instead.`,
      );
    }
  }
}

function checkEventBasedGateway(p: ProcessRead, info: NodeInfo, findings: Findings): void {
  const { node } = info;
  const subject = named('eventBasedGateway', node.id);
  if (node.outgoing.length < 2) {
    findings.problem(
      node.id,
      `${subject} has ${node.outgoing.length === 0 ? 'no outgoing flow' : 'only one outgoing flow'}; it needs at least two, each to an event it waits for (a timer or a message intermediate catch event).`,
    );
  }
  for (const flowId of node.outgoing) {
    const targetId = p.flows.get(flowId)?.flow.targetRef;
    const target = targetId === undefined ? undefined : p.nodes.get(targetId);
    if (target === undefined) continue;
    const ref = lowerFirst(named(target.kind, target.node.id));
    if (target.kind === 'receiveTask') {
      findings.problem(
        node.id,
        `${subject} leads to ${ref}; Orca does not support receive tasks after an event-based gateway: use a message intermediate catch event instead.`,
      );
    } else if (target.kind === 'intermediateCatchEvent') {
      // Other catch kinds (signal, conditional, none) are reported on the event itself as unsupported.
      if (target.eventKind === 'link') {
        findings.problem(
          node.id,
          `${subject} leads to ${lowerFirst(eventSubject(target))}; an event-based gateway can only wait for timer and message intermediate catch events.`,
        );
      }
    } else {
      findings.problem(node.id, `${subject} leads to ${ref}; an event-based gateway can only wait for timer and message intermediate catch events.`);
    }
    const others = target.node.incoming.filter((id) => id !== flowId);
    if (others.length > 0) {
      findings.problem(
        node.id,
        `${subject} leads to '${target.node.id}', which has other incoming flows (${quoted(others)}); an event after an event-based gateway must be reached only through that one flow.`,
      );
    }
  }
}

function checkEventSubProcess(info: NodeInfo, findings: Findings): void {
  const { node } = info;
  const subject = `Event subprocess '${node.id}'`;
  const starts = node.startEvents ?? [];
  if (starts.length === 0) {
    findings.problem(node.id, `${subject} has no start event: add the timer, error or escalation start event that triggers it.`);
  } else if (starts.length > 1) {
    findings.problem(
      node.id,
      `${subject} has ${starts.length} start events (${quoted(starts)}); an event subprocess has exactly one, the event that triggers it.`,
    );
  }
  const flows = [...node.incoming, ...node.outgoing];
  if (flows.length > 0) {
    findings.problem(
      node.id,
      `${subject} is connected by sequence flows (${quoted(flows)}); an event subprocess starts only through its start event and cannot have incoming or outgoing flows.`,
    );
  }
}

interface Catch {
  id: string;
  code: string | undefined;
}

/** The runtime takes the first catch that matches; two that match the same throw would be a silent choice. */
function reportDuplicateCatches(kind: 'error' | 'escalation', catches: Catch[], where: string, findings: Findings): void {
  const byCode = new Map<string | undefined, string[]>();
  for (const c of catches) byCode.set(c.code, [...(byCode.get(c.code) ?? []), c.id]);
  for (const [code, ids] of byCode) {
    if (ids.length < 2) continue;
    const what = code === undefined ? `catch every ${kind} (no ${kind} code)` : `catch ${kind} code '${code}'`;
    for (const id of ids.slice(1)) {
      findings.problem(id, `'${ids[0]}' and '${id}' both ${what} ${where}; only one catch per ${kind} code is allowed there.`);
    }
  }
}

function checkDuplicateCatches(p: ProcessRead, findings: Findings): void {
  const catchesOf = (ids: readonly string[], kind: 'error' | 'escalation'): Catch[] => {
    const out: Catch[] = [];
    for (const id of ids) {
      const info = p.nodes.get(id);
      if (info === undefined || info.eventKind !== kind) continue;
      const definition = info.node.eventDefinition;
      out.push({ id, code: kind === 'error' ? definition?.errorCode : definition?.escalationCode });
    }
    return out;
  };
  const scopes: { label: string; eventSubProcesses: readonly string[] }[] = [{ label: `process '${p.id}'`, eventSubProcesses: p.eventSubProcesses }];
  for (const info of p.nodes.values()) {
    const { node } = info;
    if (node.boundaryEvents.length > 1) {
      for (const kind of ['error', 'escalation'] as const) {
        reportDuplicateCatches(kind, catchesOf(node.boundaryEvents, kind), `on ${lowerFirst(named(info.kind, node.id))}`, findings);
      }
    }
    if ((node.eventSubProcesses ?? []).length > 1)
      scopes.push({ label: `${kindWords(info.kind)} '${node.id}'`, eventSubProcesses: node.eventSubProcesses ?? [] });
  }
  for (const scope of scopes) {
    if (scope.eventSubProcesses.length < 2) continue;
    const starts = scope.eventSubProcesses.flatMap((id) => p.nodes.get(id)?.node.startEvents ?? []);
    for (const kind of ['error', 'escalation'] as const) {
      reportDuplicateCatches(kind, catchesOf(starts, kind), `in the event subprocesses of ${scope.label}`, findings);
    }
  }
}

/** Every rule above, for one executable process. */
export function checkRuntimeRules(p: ProcessRead, findings: Findings): void {
  for (const info of p.nodes.values()) {
    const subject = info.multiInstance ? `Multi-instance ${kindWords(info.kind)} '${info.node.id}'` : named(info.kind, info.node.id);
    if (info.kind === 'callActivity') checkCallActivity(info, findings);
    if (info.kind === 'businessRuleTask') checkCalledDecision(info, findings);
    if (info.kind === 'eventBasedGateway') checkEventBasedGateway(p, info, findings);
    if (info.kind === 'subProcess' && info.node.triggeredByEvent === true) checkEventSubProcess(info, findings);
    if (info.multiInstance) checkMultiInstance(info, subject, findings);
    checkTimerPosition(info, findings);
  }
  checkLinks(p, findings);
  checkDuplicateCatches(p, findings);
}
