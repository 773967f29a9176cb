// Deploy-time warnings for a model written for Camunda 8: each element of an
// executable process that Orca runs differently from Zeebe, with a code and
// a sentence saying what happens instead. The model still deploys; these
// are what an author should know before the first instance surprises them
// (SPEC.md makes script tasks and message waits jobs, has no forms,
// assignment rules or signals, and lets no documented call trigger an error catch).
import { ZEEBE_NS } from './xml.ts';
import { zeebeElements } from './read-zeebe.ts';
import type { NodeInfo, ProcessRead } from './read-process.ts';
import type { ModelWarning } from './types.ts';

export type CamundaDifference =
  | 'SCRIPT_TASK_IS_JOB'
  | 'ERROR_CATCH_NEEDS_EXTENSION'
  | 'ASSIGNMENT_IGNORED'
  | 'FORM_IGNORED'
  | 'TASK_SCHEDULE_IGNORED'
  | 'MESSAGE_WAIT_IS_JOB'
  | 'MESSAGE_EVENT_NEEDS_EXTENSION'
  | 'SIGNAL_EVENT_NEEDS_EXTENSION';

/** The differences in one executable process, in document order. */
export function camundaDifferences(p: ProcessRead): ModelWarning[] {
  const warnings: ModelWarning[] = [];
  const add = (elementId: string, code: CamundaDifference, message: string) => warnings.push({ elementId, code, message });
  const infos = [...p.nodes.values()].sort((a, b) => a.order - b.order);
  for (const info of infos) {
    const { node, kind } = info;
    const id = node.id;
    if (kind === 'scriptTask') scriptTask(info, add);
    if (kind === 'userTask') userTask(info, add);
    if (kind === 'receiveTask' && node.job !== undefined) {
      add(id, 'MESSAGE_WAIT_IS_JOB', messageWait(`receive task '${id}'`, `message:${oneLine(info.messageName)}`));
    }
    if (kind === 'intermediateCatchEvent' && info.eventKind === 'message') {
      add(id, 'MESSAGE_WAIT_IS_JOB', messageWait(`message catch event '${id}'`, `event:message:${id}`));
    }
    if (node.eventDefinition?.kind === 'message' && (kind === 'boundaryEvent' || kind === 'startEvent')) {
      const what =
        kind === 'boundaryEvent'
          ? `Message boundary event '${id}'`
          : info.scope === 'eventSubProcess'
            ? `Message start event '${id}' of an event subprocess`
            : `Message start event '${id}'`;
      add(
        id,
        'MESSAGE_EVENT_NEEDS_EXTENSION',
        `${what} is triggered only by a message published through the extension POST /api/v1/messages; Orca's documented API publishes ` +
          'no messages, so without it the event never fires.',
      );
    }
    if (node.eventDefinition?.kind === 'signal' && kind !== 'intermediateThrowEvent' && kind !== 'endEvent') {
      add(
        id,
        'SIGNAL_EVENT_NEEDS_EXTENSION',
        `${signalSubject(kind, info.scope, id)} is triggered only by a signal broadcast through the extension POST /api/v1/signals or by a ` +
          "signal throw or end event of a running instance; Orca's documented API broadcasts no signals, so without them the event never fires.",
      );
    }
    if (node.eventDefinition?.kind === 'error' && (kind === 'boundaryEvent' || kind === 'startEvent') && !errorCanReach(p, info)) {
      const what = kind === 'boundaryEvent' ? `Error boundary event '${id}'` : `Error start event '${id}' of an event subprocess`;
      add(
        id,
        'ERROR_CATCH_NEEDS_EXTENSION',
        `${what} can only be triggered by a worker throwing a BPMN error for a job: no error end event or call activity can throw one to it. ` +
          "Orca's documented API has no such call, so without the extension POST /api/v1/jobs/{jobKey}/error it never fires.",
      );
    }
  }
  return warnings;
}

function signalSubject(kind: string, scope: string, id: string): string {
  if (kind === 'boundaryEvent') return `Signal boundary event '${id}'`;
  if (kind === 'intermediateCatchEvent') return `Signal catch event '${id}'`;
  return scope === 'eventSubProcess' ? `Signal start event '${id}' of an event subprocess` : `Signal start event '${id}'`;
}

type Add = (elementId: string, code: CamundaDifference, message: string) => void;

function scriptTask(info: NodeInfo, add: Add): void {
  const id = info.node.id;
  const type = info.node.job?.type.kind === 'literal' ? info.node.job.type.value : `script:${id}`;
  if (info.node.script !== undefined) {
    add(
      id,
      'SCRIPT_TASK_IS_JOB',
      `Script task '${id}': Camunda 8 evaluates its FEEL script itself; Orca waits on a job of type '${type}' instead, with the expression and ` +
        'result variable in its custom headers (script.expression, script.resultVariable). A worker must evaluate it and complete the job with ' +
        'the result; a completion without it leaves the result variable unset. Deployed with the inlineScripts option (extension), Orca ' +
        'evaluates it inline as Zeebe does.',
    );
  } else if (info.zeebe.taskDefinition?.type !== undefined) {
    add(
      id,
      'SCRIPT_TASK_IS_JOB',
      `Script task '${id}': Camunda 8 creates a job of type '${info.zeebe.taskDefinition.type}'; Orca names the job of every script task ` +
        `'${type}' (SPEC.md), so a worker for '${info.zeebe.taskDefinition.type}' never sees it.`,
    );
  }
}

function userTask(info: NodeInfo, add: Add): void {
  const id = info.node.id;
  for (const z of zeebeElements(info.el)) {
    if (z.ns !== ZEEBE_NS) continue;
    if (z.local === 'assignmentDefinition') {
      add(
        id,
        'ASSIGNMENT_IGNORED',
        `User task '${id}': zeebe:assignmentDefinition (assignee, candidate users and groups) is ignored; the task starts unassigned. ` +
          'Assign it through the API (POST /api/v1/tasks/{id}/assign or /claim).',
      );
    } else if (z.local === 'formDefinition') {
      add(id, 'FORM_IGNORED', `User task '${id}': its form (zeebe:formDefinition) is ignored; Orca has no forms, a client shows the task's variables.`);
    } else if (z.local === 'taskSchedule') {
      add(
        id,
        'TASK_SCHEDULE_IGNORED',
        `User task '${id}': zeebe:taskSchedule (due and follow-up dates) is ignored; model a deadline as a timer boundary event.`,
      );
    }
  }
}

function messageWait(what: string, jobType: string): string {
  return (
    `The ${what} waits in Camunda 8 for a published message correlated by its key; in Orca it is a job of type '${jobType}' that a worker ` +
    'completes, and that worker must check itself that the instance is the one the message is for (the job carries the message name and ' +
    'the evaluated correlation key in `message`). With the extension POST /api/v1/messages, a published message completes it too and ' +
    'withdraws the job.'
  );
}

/** Whether anything but a worker's job can throw an error that `info` (an error boundary or event subprocess start) catches. */
function errorCanReach(p: ProcessRead, info: NodeInfo): boolean {
  const node = info.node;
  if (node.attachedTo !== undefined) {
    const host = p.nodes.get(node.attachedTo);
    if (host === undefined) return true;
    if (host.kind === 'callActivity') return true;
    return host.kind === 'subProcess' && throwsInside(p, host.node.id);
  }
  // An event subprocess start: errors thrown anywhere in its scope but inside the event subprocess itself.
  const eventSubProcess = node.parent;
  if (eventSubProcess === null) return true;
  const scope = p.nodes.get(eventSubProcess)?.node.parent ?? null;
  return throwsInside(p, scope, eventSubProcess);
}

/** Whether an error end event or a call activity sits inside `container` (null: the process), not counting `except`'s contents. */
function throwsInside(p: ProcessRead, container: string | null, except?: string): boolean {
  for (const info of p.nodes.values()) {
    const thrower = (info.kind === 'endEvent' && info.eventKind === 'error') || info.kind === 'callActivity';
    if (thrower && within(p, info.node.parent, container, except)) return true;
  }
  return false;
}

function within(p: ProcessRead, parent: string | null, container: string | null, except?: string): boolean {
  for (let at = parent; ; at = p.nodes.get(at)?.node.parent ?? null) {
    if (except !== undefined && at === except) return false;
    if (at === container) return true;
    if (at === null) return false;
  }
}

function oneLine(text: string | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}
