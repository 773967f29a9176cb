// Throwing BPMN errors and escalations. The catch is searched from the
// thrower outwards: in each scope, its event subprocesses first, then the
// boundary events of the activity that is the scope; past the process, the
// parent instance of a call activity continues the search. An error a
// worker throws for its job (extension) starts at the job's own activity and
// may carry variables, set where it is caught.
import type { Execution } from '../execution.ts';
import type { ElementInstance, Variables } from '../types.ts';
import { findBoundary, triggerBoundary } from './boundary.ts';
import { findEventSubProcessStart, triggerEventSubProcess } from './event-subprocess.ts';
import { raiseIncident } from './incident.ts';
import { setPropagatedVariable } from './variables.ts';

export type CatchOutcome =
  /** Caught by an interrupting catch: the thrower's token is gone. */
  | 'interrupted'
  /** Caught without interrupting, or (escalations) not caught: the thrower goes on. */
  | 'continue'
  /** An error handed to the parent instance, or left as an incident: the thrower waits. */
  | 'waiting';

/** Searches from scope `scopeKey` outwards; `skipBoundariesOf` is an activity already checked. */
function catchFrom(exec: Execution, scopeKey: string, kind: 'error' | 'escalation', code: string, variables?: Variables): CatchOutcome | undefined {
  for (let key = scopeKey; ;) {
    const start = findEventSubProcessStart(exec, key, kind, code);
    if (start !== undefined) {
      setCaughtVariables(exec, key, variables);
      triggerEventSubProcess(exec, key, start);
      return start.isInterrupting === false ? 'continue' : 'interrupted';
    }
    if (key === exec.instance.key) return undefined;
    const host = exec.instance.elements[key];
    const outcome = catchOnActivity(exec, host, kind, code, variables);
    if (outcome !== undefined) return outcome;
    key = host.scopeKey;
  }
}

/** Boundary events of `host` (the multi-instance body, or the ad-hoc subprocess, when `host` is an inner instance's scope). */
function catchOnActivity(exec: Execution, host: ElementInstance, kind: 'error' | 'escalation', code: string, variables?: Variables): CatchOutcome | undefined {
  if (host.loopIndex !== undefined || host.adHoc?.inner) return undefined;
  const boundary = findBoundary(exec, exec.model.elements[host.elementId], kind, code);
  if (boundary === undefined) return undefined;
  setCaughtVariables(exec, host.scopeKey, variables);
  triggerBoundary(exec, host, boundary);
  return boundary.cancelActivity === false ? 'continue' : 'interrupted';
}

export function throwError(exec: Execution, thrower: ElementInstance, errorCode: string, errorMessage?: string): CatchOutcome {
  exec.record('ERROR_THROWN', { elementId: thrower.elementId, elementInstanceKey: thrower.key, detail: { errorCode, errorMessage } });
  const outcome = catchFrom(exec, thrower.scopeKey, 'error', errorCode);
  if (outcome !== undefined) return outcome;
  return errorNotCaughtHere(exec, thrower, errorCode, errorMessage);
}

/**
 * An error a worker threw for the job of `thrower` (whose job is already
 * withdrawn): the activity's own boundary events first, then outwards.
 */
export function throwJobError(
  exec: Execution,
  thrower: ElementInstance,
  jobKey: string,
  errorCode: string,
  errorMessage?: string,
  variables?: Variables,
): CatchOutcome {
  exec.record('ERROR_THROWN', { elementId: thrower.elementId, elementInstanceKey: thrower.key, jobKey, detail: { errorCode, errorMessage, fromJob: true } });
  const outcome = catchOnActivity(exec, thrower, 'error', errorCode, variables) ?? catchFrom(exec, thrower.scopeKey, 'error', errorCode, variables);
  if (outcome !== undefined) return outcome;
  return errorNotCaughtHere(exec, thrower, errorCode, errorMessage, variables);
}

/** An error from a child instance, thrown at the call activity `callActivity`. */
export function throwChildError(exec: Execution, callActivity: ElementInstance, errorCode: string, errorMessage?: string, variables?: Variables): boolean {
  exec.record('ERROR_THROWN', {
    elementId: callActivity.elementId,
    elementInstanceKey: callActivity.key,
    detail: { errorCode, errorMessage, fromChild: true },
  });
  return (
    (catchOnActivity(exec, callActivity, 'error', errorCode, variables) ?? catchFrom(exec, callActivity.scopeKey, 'error', errorCode, variables)) !== undefined
  );
}

/**
 * A caught error's variables land as a job completion's would from the scope
 * holding the catch: on the nearest scope that has the name, else the process.
 */
function setCaughtVariables(exec: Execution, scopeKey: string, variables: Variables | undefined): void {
  if (variables === undefined) return;
  for (const name of Object.keys(variables)) setPropagatedVariable(exec.instance, scopeKey, name, variables[name]);
}

function errorNotCaughtHere(exec: Execution, thrower: ElementInstance, errorCode: string, errorMessage?: string, variables?: Variables): CatchOutcome {
  thrower.pendingError = variables === undefined ? { errorCode, errorMessage } : { errorCode, errorMessage, variables };
  const parent = exec.instance.parent;
  if (parent !== undefined) {
    exec.persist(thrower);
    exec.effect({
      type: 'sendCommand',
      instanceKey: parent.instanceKey,
      command: {
        type: 'childError',
        elementInstanceKey: parent.elementInstanceKey,
        childInstanceKey: exec.instance.key,
        errorCode,
        errorMessage,
        throwingElementInstanceKey: thrower.key,
        ...(variables === undefined ? {} : { variables }),
      },
    });
    return 'waiting';
  }
  raiseUnhandledError(exec, thrower);
  return 'waiting';
}

export function raiseUnhandledError(exec: Execution, thrower: ElementInstance): void {
  const { errorCode, errorMessage } = thrower.pendingError!;
  raiseIncident(
    exec,
    thrower,
    'UNHANDLED_ERROR_EVENT',
    `Error '${errorCode}'${errorMessage ? ` (${errorMessage})` : ''} thrown by '${thrower.elementId}' was not caught: ` +
      'no error boundary event or error event subprocess matches it.',
  );
}

export function throwEscalation(exec: Execution, thrower: ElementInstance, escalationCode: string): CatchOutcome {
  exec.record('ESCALATION_THROWN', { elementId: thrower.elementId, elementInstanceKey: thrower.key, detail: { escalationCode } });
  const outcome = catchFrom(exec, thrower.scopeKey, 'escalation', escalationCode);
  if (outcome !== undefined) return outcome;
  const parent = exec.instance.parent;
  if (parent !== undefined) {
    exec.effect({
      type: 'sendCommand',
      instanceKey: parent.instanceKey,
      command: { type: 'childEscalation', elementInstanceKey: parent.elementInstanceKey, escalationCode },
    });
  }
  // An escalation nobody catches is not an error (BPMN): the thrower goes on.
  return 'continue';
}

/** An escalation from a child instance, thrown at the call activity. */
export function throwChildEscalation(exec: Execution, callActivity: ElementInstance, escalationCode: string): void {
  exec.record('ESCALATION_THROWN', { elementId: callActivity.elementId, elementInstanceKey: callActivity.key, detail: { escalationCode, fromChild: true } });
  if ((catchOnActivity(exec, callActivity, 'escalation', escalationCode) ?? catchFrom(exec, callActivity.scopeKey, 'escalation', escalationCode)) !== undefined)
    return;
  const parent = exec.instance.parent;
  if (parent !== undefined) {
    exec.effect({
      type: 'sendCommand',
      instanceKey: parent.instanceKey,
      command: { type: 'childEscalation', elementInstanceKey: parent.elementInstanceKey, escalationCode },
    });
  }
}
