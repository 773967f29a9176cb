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
