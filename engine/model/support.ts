// Which BPMN elements Orca executes today: the one place to flip an entry when
// the runtime learns a new element. Keys are an element kind, optionally
// narrowed by its event definition kind and its context:
//
//   <kind>                          task, subProcess, eventBasedGateway, …
//   <kind>:<event>                  startEvent:message, endEvent:terminate
//   <kind>:<event>:<context>        startEvent:none:subProcess, boundaryEvent:timer:nonInterrupting
//   <kind>:*:<context>              startEvent:*:subProcess (any event in that context)
//   <kind>:*                        implicitThrowEvent:* (the kind with any event)
//   *:<event>                       *:signal (the event kind on any element)
//   <kind>:<variant>                subProcess:eventSubProcess, businessRuleTask:calledDecision
//   loop:multiInstance, loop:standard, activity:compensationHandler  (markers on any activity)
//
// Lookup goes from the most specific key to the least; an element whose keys
// are all missing is reported as not supported. An element kind runs only
// with a processor in engine/runtime/processors.ts; processors.test.ts there
// fails until this table and that registry name the same kinds.
import { capitalize, EVENT_ELEMENTS, kindWords, subjectOf } from './labels.ts';

export type SupportStatus =
  /** Executed by the runtime. */
  | 'supported'
  /** Planned; rejected for now. */
  | 'notYet'
  /** Rejected by design: SPEC.md offers no API that could drive it. */
  | 'never'
  /** Not valid BPMN in this position. */
  | 'invalid';

export interface SupportEntry {
  status: SupportStatus;
  /** Why, in a sentence fragment for the modeller; required for 'never' and 'invalid'. */
  reason?: string;
}

const SUPPORTED: SupportEntry = { status: 'supported' };
const NOT_YET: SupportEntry = { status: 'notYet' };

export const SUPPORT: Readonly<Record<string, SupportEntry>> = {
  // Events
  'startEvent:none': SUPPORTED,
  'startEvent:none:subProcess': SUPPORTED,
  'startEvent:*:subProcess': { status: 'invalid', reason: 'an embedded subprocess starts with a single none start event' },
  'startEvent:none:eventSubProcess': { status: 'invalid', reason: 'an event subprocess must start with an event (message, timer, error, …)' },
  // Message events (extension): only a published message (POST /api/v1/messages) starts or triggers them; without one they never fire.
  'startEvent:message': SUPPORTED,
  'startEvent:message:eventSubProcess': SUPPORTED,
  'endEvent:none': SUPPORTED,
  'endEvent:terminate': SUPPORTED,
  // Message throw and end events wait as jobs of their zeebe:taskDefinition type, like send tasks.
  'endEvent:message': SUPPORTED,
  'endEvent:timer': { status: 'invalid', reason: 'an end event cannot wait for a timer' },
  'endEvent:conditional': { status: 'invalid', reason: 'an end event cannot wait for a condition' },
  'endEvent:link': { status: 'invalid', reason: 'links are intermediate events' },
  'intermediateCatchEvent:message': SUPPORTED,
  'intermediateCatchEvent:none': { status: 'invalid', reason: 'an intermediate catch event needs an event definition' },
  'intermediateThrowEvent:none': SUPPORTED,
  'intermediateThrowEvent:message': SUPPORTED,
  // Without this the event wildcards below (*:timer, …) would let it through to a runtime without a processor for it.
  'implicitThrowEvent:*': { status: 'never', reason: 'use an intermediate throw event' },
  'boundaryEvent:message': SUPPORTED,
  'boundaryEvent:none': { status: 'invalid', reason: 'a boundary event needs an event definition' },
  boundaryEvent: SUPPORTED,
  '*:timer': SUPPORTED,
  '*:error': SUPPORTED,
  '*:escalation': SUPPORTED,
  '*:link': SUPPORTED,
  'startEvent:timer:eventSubProcess': SUPPORTED,
  'startEvent:error:eventSubProcess': SUPPORTED,
  'startEvent:escalation:eventSubProcess': SUPPORTED,
  'startEvent:error': { status: 'invalid', reason: 'an error start event belongs in an event subprocess' },
  'startEvent:escalation': { status: 'invalid', reason: 'an escalation start event belongs in an event subprocess' },
  'startEvent:link': { status: 'invalid', reason: 'links are intermediate events' },
  'intermediateCatchEvent:error': { status: 'invalid', reason: 'errors are caught by boundary events and event subprocesses' },
  'intermediateCatchEvent:escalation': { status: 'invalid', reason: 'escalations are caught by boundary events and event subprocesses' },
  'intermediateThrowEvent:error': { status: 'invalid', reason: 'an error is thrown by an error end event' },
  'boundaryEvent:link': { status: 'invalid', reason: 'links are intermediate events' },
  'boundaryEvent:error:nonInterrupting': { status: 'invalid', reason: 'an error boundary event always interrupts' },
  '*:compensate': NOT_YET,
  '*:conditional': NOT_YET,
  '*:cancel': NOT_YET,
  '*:multiple': NOT_YET,
  // Signal events (extension, docs/signals.md): catches fire only on a broadcast (POST /api/v1/signals, or a signal throw or end event).
  '*:signal': SUPPORTED,

  // Tasks
  task: SUPPORTED,
  manualTask: SUPPORTED,
  serviceTask: SUPPORTED,
  sendTask: SUPPORTED,
  scriptTask: SUPPORTED,
  userTask: SUPPORTED,
  receiveTask: SUPPORTED,
  'businessRuleTask:job': SUPPORTED,
  'businessRuleTask:calledDecision': SUPPORTED,
  callActivity: SUPPORTED,

  // Gateways
  exclusiveGateway: SUPPORTED,
  parallelGateway: SUPPORTED,
  inclusiveGateway: SUPPORTED,
  eventBasedGateway: SUPPORTED,
  complexGateway: NOT_YET,

  // Subprocesses
  subProcess: SUPPORTED,
  'subProcess:eventSubProcess': SUPPORTED,
  // Zeebe 8.8: the BPMN implementation and the job worker one (a zeebe:taskDefinition on the subprocess, the AI agent pattern).
  adHocSubProcess: SUPPORTED,
  transaction: NOT_YET,

  // Markers on activities
  'loop:multiInstance': SUPPORTED,
  'loop:standard': NOT_YET,
  'activity:compensationHandler': NOT_YET,
};

export interface SupportQuery {
  /** BPMN local name of the element. */
  kind: string;
  /** Events: 'none', an event definition kind, 'cancel' or 'multiple'. */
  eventKind?: string;
  /** The container the element sits in. */
  scope: 'process' | 'subProcess' | 'eventSubProcess';
  /** Boundary events: cancelActivity="false"; event subprocess starts: isInterrupting="false". */
  nonInterrupting?: boolean;
  /** subProcess with triggeredByEvent="true". */
  eventSubProcess?: boolean;
  /** businessRuleTask with zeebe:calledDecision. */
  calledDecision?: boolean;
  multiInstance?: boolean;
  standardLoop?: boolean;
  compensationHandler?: boolean;
}

interface Verdict {
  entry?: SupportEntry;
  /** Words before the id: "Timer boundary event". */
  subject: string;
  /** Words after the id: " of an event subprocess". */
  detail: string;
}

function elementKeys(q: SupportQuery): string[] {
  if (EVENT_ELEMENTS.has(q.kind)) {
    const event = q.eventKind ?? 'none';
    const context = q.kind === 'boundaryEvent' ? (q.nonInterrupting ? 'nonInterrupting' : undefined) : q.scope === 'process' ? undefined : q.scope;
    const keys: string[] = [];
    if (context !== undefined) keys.push(`${q.kind}:${event}:${context}`);
    if (context !== undefined && event !== 'none') keys.push(`${q.kind}:*:${context}`);
    keys.push(`${q.kind}:${event}`, `${q.kind}:*`, `*:${event}`, q.kind);
    return keys;
  }
  if (q.kind === 'subProcess' && q.eventSubProcess) return ['subProcess:eventSubProcess'];
  if (q.kind === 'businessRuleTask') return [q.calledDecision ? 'businessRuleTask:calledDecision' : 'businessRuleTask:job'];
  return [q.kind];
}

function lookup(keys: string[]): SupportEntry | undefined {
  for (const key of keys) {
    const entry = SUPPORT[key];
    if (entry) return entry;
  }
  return undefined;
}

function elementVerdict(q: SupportQuery): Verdict {
  const entry = lookup(elementKeys(q));
  if (q.kind === 'subProcess' && q.eventSubProcess) return { entry, subject: 'Event subprocess', detail: '' };
  if (q.kind === 'businessRuleTask' && q.calledDecision)
    return { entry, subject: 'Business rule task', detail: ' with a called decision (zeebe:calledDecision)' };
  const subject = subjectOf(q.kind, q.eventKind, q.nonInterrupting === true);
  return { entry, subject, detail: q.kind === 'startEvent' && q.scope === 'eventSubProcess' ? ' of an event subprocess' : '' };
}

function markerVerdicts(q: SupportQuery): Verdict[] {
  const out: Verdict[] = [];
  const kind = kindWords(q.kind);
  if (q.multiInstance) out.push({ entry: lookup(['loop:multiInstance']), subject: capitalize(`multi-instance ${kind}`), detail: '' });
  if (q.standardLoop) out.push({ entry: lookup(['loop:standard']), subject: capitalize(kind), detail: ' with a standard loop' });
  if (q.compensationHandler)
    out.push({ entry: lookup(['activity:compensationHandler']), subject: capitalize(kind), detail: ' as a compensation handler (isForCompensation)' });
  return out;
}

/**
 * The problem sentence for an element Orca cannot execute, or undefined when
 * it is supported. One sentence per element: the element kind decides first,
 * then its markers (multi-instance, loop, compensation).
 */
export function unsupportedMessage(q: SupportQuery, id: string): string | undefined {
  for (const v of [elementVerdict(q), ...markerVerdicts(q)]) {
    const entry = v.entry;
    if (entry?.status === 'supported') continue;
    const who = `${v.subject} '${id}'${v.detail}`;
    if (!entry) return `${who} is not supported by Orca.`;
    switch (entry.status) {
      case 'notYet':
        return `${who} is not yet supported by Orca${entry.reason ? `: ${entry.reason}` : ''}.`;
      case 'never':
        return `${who} is not supported: ${entry.reason ?? 'SPEC.md offers no API for it'}.`;
      case 'invalid':
        return `${who} is not valid here: ${entry.reason ?? 'BPMN does not allow it'}.`;
    }
  }
  return undefined;
}
