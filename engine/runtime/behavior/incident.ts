// Incidents: an element that cannot go on (no retries left, an expression
// that fails) stays where it is, and the instance enters INCIDENT for good
// (SPEC.md "States and transitions": it cannot be resumed over REST).
import type { Execution } from '../execution.ts';
import type { ElementInstance, IncidentType } from '../types.ts';

export function raiseIncident(exec: Execution, ei: ElementInstance, type: IncidentType, message: string, jobKey?: string): void {
  const key = exec.nextKey();
  exec.instance.incidents[key] = { key, type, elementId: ei.elementId, elementInstanceKey: ei.key, jobKey, message, createdAt: exec.now };
  ei.incidentKey = key;
  exec.persist(ei);
  exec.instance.state = 'INCIDENT';
  exec.record('INCIDENT_CREATED', {
    elementId: ei.elementId,
    elementInstanceKey: ei.key,
    incidentKey: key,
    jobKey,
    detail: { incidentType: type, message },
  });
}

/**
 * Sets the instance aside after a command for it could not be processed:
 * an incident at the element the command addressed, or at the process when
 * that element is gone, and the instance takes no more commands but cancel.
 */
export function setAside(exec: Execution, message: string, elementInstanceKey?: string): void {
  const instance = exec.instance;
  instance.setAside = message;
  const ei = elementInstanceKey === undefined ? undefined : instance.elements[elementInstanceKey];
  if (ei !== undefined) {
    raiseIncident(exec, ei, 'UNPROCESSABLE_COMMAND', message);
    return;
  }
  const key = exec.nextKey();
  instance.incidents[key] = {
    key,
    type: 'UNPROCESSABLE_COMMAND',
    elementId: instance.bpmnProcessId,
    elementInstanceKey: instance.key,
    message,
    createdAt: exec.now,
  };
  instance.state = 'INCIDENT';
  exec.record('INCIDENT_CREATED', {
    elementId: instance.bpmnProcessId,
    elementInstanceKey: instance.key,
    incidentKey: key,
    detail: { incidentType: 'UNPROCESSABLE_COMMAND', message },
  });
}
