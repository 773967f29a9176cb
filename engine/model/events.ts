// Event definitions. The root-level catalog (bpmn:message, error, escalation,
// signal and shared event definitions) is read once per document; each event
// then resolves its single definition against it: message name and
// correlation key, timer expression (literal timer text is parsed here, with
// engine/timer, the parser the runtime schedules with, so a timer that could
// never be scheduled is a deploy-time problem), error code, escalation code,
// signal name, link name.
import { parseTimer } from '../timer/index.ts';
import { feelSource, isFeel, valueExpr } from './expressions.ts';
import type { Findings } from './findings.ts';
import { lowerFirst, subjectOf } from './labels.ts';
import { readZeebe } from './read-zeebe.ts';
import type { EventDefinition, EventDefinitionKind, TimerDefinition } from './types.ts';
import { BPMN_NS, bpmnChild, type XmlElement } from './xml.ts';

export interface MessageEntry {
  id: string;
  /** The name attribute as written (may be `=FEEL`). */
  name?: string;
  /** zeebe:subscription correlationKey as written. */
  correlationKey?: string;
}

export interface Catalog {
  messages: Map<string, MessageEntry>;
  errors: Map<string, { id: string; name?: string; errorCode?: string }>;
  escalations: Map<string, { id: string; name?: string; escalationCode?: string }>;
  signals: Map<string, { id: string; name?: string }>;
  /** Root-level event definitions that events can point at with eventDefinitionRef. */
  eventDefinitions: Map<string, XmlElement>;
}

/** Event definition element → kind. cancel is BPMN but has no EventDefinitionKind (transactions only). */
export const EVENT_DEFINITION_KINDS: Record<string, EventDefinitionKind | 'cancel'> = {
  messageEventDefinition: 'message',
  timerEventDefinition: 'timer',
  errorEventDefinition: 'error',
  escalationEventDefinition: 'escalation',
  signalEventDefinition: 'signal',
  terminateEventDefinition: 'terminate',
  linkEventDefinition: 'link',
  compensateEventDefinition: 'compensate',
  conditionalEventDefinition: 'conditional',
  cancelEventDefinition: 'cancel',
};

export function readCatalog(definitions: XmlElement): Catalog {
  const catalog: Catalog = { messages: new Map(), errors: new Map(), escalations: new Map(), signals: new Map(), eventDefinitions: new Map() };
  for (const el of definitions.children) {
    if (el.ns !== BPMN_NS) continue;
    const id = el.attrs.id;
    if (id === undefined) continue;
    switch (el.local) {
      case 'message':
        catalog.messages.set(id, { id, name: el.attrs.name, correlationKey: readZeebe(el).subscription?.correlationKey });
        break;
      case 'error':
        catalog.errors.set(id, { id, name: el.attrs.name, errorCode: el.attrs.errorCode });
        break;
      case 'escalation':
        catalog.escalations.set(id, { id, name: el.attrs.name, escalationCode: el.attrs.escalationCode });
        break;
      case 'signal':
        catalog.signals.set(id, { id, name: el.attrs.name });
        break;
      default:
        if (el.local in EVENT_DEFINITION_KINDS) catalog.eventDefinitions.set(id, el);
    }
  }
  return catalog;
}

export interface EventRead {
  /** 'none', an EventDefinitionKind, 'cancel', or 'multiple' when an event carries several definitions. */
  kind: string;
  definition: EventDefinition;
}

/** The message behind `messageRef`, with FEEL parts queued for checking; reports unknown references. */
export function resolveMessage(
  messageRef: string | undefined,
  owner: { id: string; subject: string },
  catalog: Catalog,
  findings: Findings,
): MessageEntry | undefined {
  if (messageRef === undefined || messageRef === '') return undefined;
  const message = catalog.messages.get(messageRef);
  if (!message) {
    findings.problem(owner.id, `${owner.subject} refers to message '${messageRef}', which is not defined in this file.`);
    return undefined;
  }
  if (message.name !== undefined && isFeel(message.name)) findings.checkFeel(message.id, `the name of message '${message.id}'`, feelSource(message.name));
  if (message.correlationKey) findings.checkFeel(message.id, `the correlation key of message '${message.id}'`, feelSource(message.correlationKey));
  return message;
}

/** Timer text written as a Camunda 7 / JUEL expression is literal text in Camunda 8. */
function expressionHint(text: string): string {
  return /[$#]\{/.test(text) ? " Camunda 8 reads expressions only as FEEL with a leading '=' (for example =dueDate); anything else is literal text." : '';
}

function readTimer(def: XmlElement, owner: { id: string; subject: string }, findings: Findings): TimerDefinition | undefined {
  const types: [string, TimerDefinition['type']][] = [
    ['timeDuration', 'duration'],
    ['timeDate', 'date'],
    ['timeCycle', 'cycle'],
  ];
  for (const [local, type] of types) {
    const child = bpmnChild(def, local);
    if (!child) continue;
    const expr = valueExpr(child.text);
    if (expr.kind === 'feel') findings.checkFeel(owner.id, `the timer ${type} of ${lowerFirst(owner.subject)}`, expr.source);
    else if (expr.value === '') break;
    else {
      const parsed = parseTimer(type, expr.value);
      if (!parsed.ok) findings.problem(owner.id, `${owner.subject} has a timer ${type} Orca cannot schedule: ${parsed.error}${expressionHint(expr.value)}`);
    }
    return { type, expr };
  }
  findings.problem(owner.id, `${owner.subject} has a timer without a time: set a duration, a date or a cycle.`);
  return undefined;
}

function readOne(
  def: XmlElement,
  kind: EventDefinitionKind | 'cancel',
  owner: { id: string; subject: string },
  catalog: Catalog,
  findings: Findings,
): EventDefinition {
  const definition: EventDefinition = { kind: kind === 'cancel' ? 'none' : kind };
  const a = def.attrs;
  switch (kind) {
    case 'message': {
      const message = resolveMessage(a.messageRef, owner, catalog, findings);
      if (message?.name !== undefined && message.name !== '') definition.messageName = valueExpr(message.name);
      if (message?.correlationKey) definition.correlationKey = feelSource(message.correlationKey);
      break;
    }
    case 'timer': {
      const timer = readTimer(def, owner, findings);
      if (timer) definition.timer = timer;
      break;
    }
    case 'error': {
      if (a.errorRef === undefined) break;
      const error = catalog.errors.get(a.errorRef);
      if (!error) findings.problem(owner.id, `${owner.subject} refers to error '${a.errorRef}', which is not defined in this file.`);
      else {
        if (error.errorCode !== undefined && error.errorCode !== '') definition.errorCode = error.errorCode;
        if (error.name !== undefined && error.name !== '') definition.errorName = error.name;
      }
      break;
    }
    case 'escalation': {
      if (a.escalationRef === undefined) break;
      const escalation = catalog.escalations.get(a.escalationRef);
      if (!escalation) findings.problem(owner.id, `${owner.subject} refers to escalation '${a.escalationRef}', which is not defined in this file.`);
      else if (escalation.escalationCode !== undefined && escalation.escalationCode !== '') definition.escalationCode = escalation.escalationCode;
      break;
    }
    case 'signal': {
      // Zeebe refuses a signal event without a signal name; one here would wait for, or throw, nothing.
      const signal = a.signalRef === undefined ? undefined : catalog.signals.get(a.signalRef);
      if (a.signalRef !== undefined && !signal)
        findings.problem(owner.id, `${owner.subject} refers to signal '${a.signalRef}', which is not defined in this file.`);
      else if (signal?.name === undefined || signal.name.trim() === '')
        findings.problem(owner.id, `${owner.subject} names no signal: it needs a signalRef to a bpmn:signal with a name.`);
      else definition.signalName = signal.name;
      break;
    }
    case 'link':
      if (a.name !== undefined) definition.linkName = a.name;
      break;
    default:
      break;
  }
  return definition;
}

/** Reads the event definition of event element `el`. */
export function readEvent(el: XmlElement, owner: { id: string; subject: string }, catalog: Catalog, findings: Findings): EventRead {
  const found: [XmlElement, EventDefinitionKind | 'cancel'][] = [];
  for (const c of el.children) {
    if (c.ns !== BPMN_NS) continue;
    const kind = EVENT_DEFINITION_KINDS[c.local];
    if (kind !== undefined) found.push([c, kind]);
    else if (c.local === 'eventDefinitionRef') {
      const shared = catalog.eventDefinitions.get(c.text);
      if (shared) found.push([shared, EVENT_DEFINITION_KINDS[shared.local]]);
      else findings.problem(owner.id, `${owner.subject} refers to event definition '${c.text}', which is not defined in this file.`);
    }
  }
  if (found.length === 0) return { kind: 'none', definition: { kind: 'none' } };
  const [def, kind] = found[0];
  const definition = readOne(def, kind, owner, catalog, findings);
  if (found.length === 1 && (kind === 'error' || kind === 'escalation')) {
    checkCode(el.local, kind, kind === 'error' ? def.attrs.errorRef : def.attrs.escalationRef, owner, catalog, findings);
  }
  return { kind: found.length > 1 ? 'multiple' : kind, definition };
}

/**
 * What an error or escalation event needs of its code. A throw (error end
 * event, escalation end or intermediate throw event) throws its code, so it
 * must have one: the runtime would otherwise throw an empty code that only a
 * catch-all catches. A catch without a code catches all, which is valid. A
 * code written as FEEL (`=…`) is never evaluated by Orca, on either side.
 */
function checkCode(
  element: string,
  kind: 'error' | 'escalation',
  ref: string | undefined,
  owner: { id: string; subject: string },
  catalog: Catalog,
  findings: Findings,
): void {
  const subject = `${subjectOf(element, kind)} '${owner.id}'`;
  const codeAttr = kind === 'error' ? 'errorCode' : 'escalationCode';
  const entry = ref === undefined || ref === '' ? undefined : kind === 'error' ? catalog.errors.get(ref) : catalog.escalations.get(ref);
  const code =
    entry === undefined ? undefined : kind === 'error' ? (entry as { errorCode?: string }).errorCode : (entry as { escalationCode?: string }).escalationCode;
  if (code !== undefined && isFeel(code)) {
    findings.problem(
      owner.id,
      `${subject} uses ${kind} '${ref ?? ''}', whose ${codeAttr} '${code}' is a FEEL expression; Orca matches ${kind} codes as written and does not evaluate them, so give the ${kind} a fixed ${codeAttr}.`,
    );
    return;
  }
  const throws = element === 'endEvent' || (kind === 'escalation' && element === 'intermediateThrowEvent');
  if (!throws) return;
  const refAttr = kind === 'error' ? 'errorRef' : 'escalationRef';
  if (ref === undefined || ref === '') {
    findings.problem(
      owner.id,
      `${subject} throws no ${kind}: set ${refAttr} to a bpmn:${kind} with an ${codeAttr}, the code that boundary events and event subprocesses catch.`,
    );
  } else if (entry !== undefined && (code === undefined || code.trim() === '')) {
    findings.problem(
      owner.id,
      `${subject} throws ${kind} '${ref}', which has no ${codeAttr}: give the ${kind} an ${codeAttr}, the code that boundary events and event subprocesses catch.`,
    );
  }
  // An unknown reference is reported by readOne.
}
