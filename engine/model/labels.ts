// Element kinds in words, so every problem names the element the way a
// modeller sees it in Camunda Modeler ("Timer boundary event 'Event_1'")
// rather than by XML tag.

const KIND_WORDS: Record<string, string> = {
  startEvent: 'start event',
  endEvent: 'end event',
  intermediateCatchEvent: 'intermediate catch event',
  intermediateThrowEvent: 'intermediate throw event',
  boundaryEvent: 'boundary event',
  implicitThrowEvent: 'implicit throw event',
  task: 'task',
  manualTask: 'manual task',
  serviceTask: 'service task',
  sendTask: 'send task',
  scriptTask: 'script task',
  userTask: 'user task',
  receiveTask: 'receive task',
  businessRuleTask: 'business rule task',
  callActivity: 'call activity',
  subProcess: 'subprocess',
  adHocSubProcess: 'ad-hoc subprocess',
  transaction: 'transaction subprocess',
  exclusiveGateway: 'exclusive gateway',
  parallelGateway: 'parallel gateway',
  inclusiveGateway: 'inclusive gateway',
  eventBasedGateway: 'event-based gateway',
  complexGateway: 'complex gateway',
  sequenceFlow: 'sequence flow',
  process: 'process',
  message: 'message',
  error: 'error',
  escalation: 'escalation',
  signal: 'signal',
  participant: 'participant',
  collaboration: 'collaboration',
  lane: 'lane',
};

const EVENT_WORDS: Record<string, string> = {
  none: 'none',
  message: 'message',
  timer: 'timer',
  error: 'error',
  escalation: 'escalation',
  signal: 'signal',
  terminate: 'terminate',
  link: 'link',
  compensate: 'compensation',
  conditional: 'conditional',
  cancel: 'cancel',
  multiple: 'multiple',
};

export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** For a subject used mid-sentence: "Call activity 'A'" → "call activity 'A'". */
export function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** "service task", or the BPMN tag name split into words for kinds without an entry. */
export function kindWords(kind: string): string {
  return KIND_WORDS[kind] ?? kind.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

export function eventWords(eventKind: string): string {
  return EVENT_WORDS[eventKind] ?? eventKind;
}

export const EVENT_ELEMENTS: ReadonlySet<string> = new Set([
  'startEvent',
  'endEvent',
  'intermediateCatchEvent',
  'intermediateThrowEvent',
  'boundaryEvent',
  'implicitThrowEvent',
]);

export const ACTIVITIES: ReadonlySet<string> = new Set([
  'task',
  'manualTask',
  'serviceTask',
  'sendTask',
  'scriptTask',
  'userTask',
  'receiveTask',
  'businessRuleTask',
  'callActivity',
  'subProcess',
  'adHocSubProcess',
  'transaction',
]);

export const GATEWAYS: ReadonlySet<string> = new Set(['exclusiveGateway', 'parallelGateway', 'inclusiveGateway', 'eventBasedGateway', 'complexGateway']);

/** "Timer boundary event", "Non-interrupting message start event", "Service task". */
export function subjectOf(kind: string, eventKind?: string, nonInterrupting = false): string {
  if (!EVENT_ELEMENTS.has(kind) || eventKind === undefined) return capitalize(kindWords(kind));
  const prefix = nonInterrupting ? 'non-interrupting ' : '';
  return capitalize(`${prefix}${eventWords(eventKind)} ${kindWords(kind)}`);
}

/** `Service task 'Task_1'` */
export function named(kind: string, id: string): string {
  return `${capitalize(kindWords(kind))} '${id}'`;
}
