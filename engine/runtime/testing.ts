// Test support: terse BPMN fragments and an engine with one model deployed.
// Used by the runtime's tests only.
import { compileBpmn } from '../model/index.ts';
import { InMemoryEngine, type InMemoryEngineOptions } from './in-memory-engine.ts';

export function definitions(body: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" ' +
    'xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="defs" targetNamespace="http://orca.test">' +
    body +
    '</bpmn:definitions>'
  );
}

export function processXml(id: string, inner: string): string {
  return definitions(`<bpmn:process id="${id}" isExecutable="true">${inner}</bpmn:process>`);
}

export const start = (id = 'start') => `<bpmn:startEvent id="${id}"/>`;
export const end = (id = 'end') => `<bpmn:endEvent id="${id}"/>`;
export const terminateEnd = (id: string) => `<bpmn:endEvent id="${id}"><bpmn:terminateEventDefinition/></bpmn:endEvent>`;

export function flow(id: string, from: string, to: string, condition?: string): string {
  if (condition === undefined) return `<bpmn:sequenceFlow id="${id}" sourceRef="${from}" targetRef="${to}"/>`;
  return (
    `<bpmn:sequenceFlow id="${id}" sourceRef="${from}" targetRef="${to}">` +
    `<bpmn:conditionExpression>${escapeXml(condition)}</bpmn:conditionExpression></bpmn:sequenceFlow>`
  );
}

export function service(id: string, type: string, extensions = '', retries?: string): string {
  const r = retries === undefined ? '' : ` retries="${escapeXml(retries)}"`;
  return (
    `<bpmn:serviceTask id="${id}"><bpmn:extensionElements><zeebe:taskDefinition type="${escapeXml(type)}"${r}/>` +
    `${extensions}</bpmn:extensionElements></bpmn:serviceTask>`
  );
}

/**
 * A process whose start event `startId` carries `startDefinition` (a message
 * or signal event definition) and leads to one service task `taskId` of
 * `type`, then the end: the shape event-start tests deploy.
 */
export function eventStartedTask(processId: string, startId: string, startDefinition: string, taskId: string, type: string): string {
  return (
    `<bpmn:process id="${processId}" isExecutable="true">` +
    `<bpmn:startEvent id="${startId}">${startDefinition}</bpmn:startEvent>` +
    service(taskId, type) +
    end() +
    flow('f1', startId, taskId) +
    flow('f2', taskId, 'end') +
    '</bpmn:process>'
  );
}

export function ioMapping(inputs: [string, string][], outputs: [string, string][] = []): string {
  const i = inputs.map(([source, target]) => `<zeebe:input source="${escapeXml(source)}" target="${target}"/>`).join('');
  const o = outputs.map(([source, target]) => `<zeebe:output source="${escapeXml(source)}" target="${target}"/>`).join('');
  return `<zeebe:ioMapping>${i}${o}</zeebe:ioMapping>`;
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Compiles `xml` (throwing with every problem if it is rejected) and deploys all its processes. */
export function engineWith(xml: string, options: InMemoryEngineOptions = {}): InMemoryEngine {
  const result = compileBpmn(xml);
  if (!result.ok) throw new Error(`model rejected:\n${result.problems.map((p) => `${p.elementId ?? '-'}: ${p.message}`).join('\n')}`);
  const engine = new InMemoryEngine({ keepHistory: true, ...options });
  for (const process of result.model.processes) engine.deploy(process);
  return engine;
}

/** Element ids in the order they completed or were terminated. */
export function visited(engine: InMemoryEngine, instanceKey: string): string[] {
  return engine
    .history(instanceKey)
    .filter((r) => r.type === 'ELEMENT_COMPLETED')
    .map((r) => r.elementId!);
}

/** A fake clock tests move by hand. */
export function fakeClock(start = Date.UTC(2026, 0, 1)) {
  let now = start;
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
    set(to: number) {
      now = to;
    },
  };
}

export function timerCatch(id: string, kind: 'timeDuration' | 'timeDate' | 'timeCycle', text: string): string {
  return `<bpmn:intermediateCatchEvent id="${id}"><bpmn:timerEventDefinition><bpmn:${kind}>${escapeXml(text)}</bpmn:${kind}></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>`;
}

export function timerBoundary(id: string, host: string, kind: 'timeDuration' | 'timeDate' | 'timeCycle', text: string, interrupting = true): string {
  return (
    `<bpmn:boundaryEvent id="${id}" attachedToRef="${host}" cancelActivity="${interrupting}">` +
    `<bpmn:timerEventDefinition><bpmn:${kind}>${escapeXml(text)}</bpmn:${kind}></bpmn:timerEventDefinition></bpmn:boundaryEvent>`
  );
}

export const MINUTE = 60_000;
