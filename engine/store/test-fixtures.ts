// Builders shared by the store's tests: instance documents, jobs, timers and
// keys shaped like the real ones (partition in the high bits, so every key is
// beyond 2^53 and would be corrupted by any trip through a JS number).
import type { TimerSchedule } from '../timer/index.ts';
import type { InstanceState, ProcessInstance, Variables } from '../runtime/types.ts';
import type { HistoryWrite, IncidentWrite, JobWrite, TimerWrite } from './commit-batch.ts';

// Any schedule will do: the store keeps it as an opaque document.
const SCHEDULE = { kind: 'duration', duration: { years: 0, months: 0, days: 0, milliseconds: 3_600_000 } } as unknown as TimerSchedule;

export function keyOf(partition: number, sequence: number): string {
  return ((BigInt(partition) << 52n) | BigInt(sequence)).toString();
}

export function instanceDoc(
  key: string,
  options: { bpmnProcessId?: string; version?: number; state?: InstanceState; variables?: Variables; startedAt?: number } = {},
): ProcessInstance {
  const state = options.state ?? 'ACTIVE';
  const startedAt = options.startedAt ?? Date.UTC(2025, 0, 1);
  return {
    key,
    bpmnProcessId: options.bpmnProcessId ?? 'order',
    version: options.version ?? 1,
    state,
    children: state === 'ACTIVE' ? 1 : 0,
    elements: {},
    variables: { [key]: options.variables ?? {} },
    jobs: {},
    incidents: {},
    joins: {},
    timers: {},
    startedAt,
    ...(state === 'COMPLETED' || state === 'TERMINATED' ? { endedAt: startedAt + 1_234 } : {}),
  };
}

export function jobWrite(account: string, key: string, instanceKey: string, overrides: Partial<JobWrite> = {}): JobWrite {
  return {
    key,
    account,
    instanceKey,
    bpmnProcessId: 'order',
    processVersion: 1,
    elementId: 'charge',
    elementInstanceKey: key,
    type: 'payment',
    retries: 3,
    state: 'ACTIVATABLE',
    customHeaders: { region: 'eu' },
    ...overrides,
  };
}

export function timerWrite(account: string, key: string, instanceKey: string | null, dueAt: Date): TimerWrite {
  return {
    key,
    account,
    instanceKey,
    ownerKey: instanceKey,
    bpmnProcessId: 'order',
    processVersion: 1,
    elementId: 'deadline',
    dueAt,
    schedule: SCHEDULE,
  };
}

export function incidentWrite(account: string, key: string, instanceKey: string): IncidentWrite {
  return {
    key,
    account,
    instanceKey,
    bpmnProcessId: 'order',
    elementId: 'charge',
    elementInstanceKey: instanceKey,
    type: 'JOB_NO_RETRIES',
    message: 'no retries left',
  };
}

export function historyWrite(account: string, instanceKey: string, elementId: string): HistoryWrite {
  return { account, instanceKey, record: { type: 'ELEMENT_ACTIVATED', at: 1, elementId } };
}
