// Job fixtures for the queue tests.
import type { QueuedJob } from '../types.ts';

export function queuedJob(key: string, overrides: Partial<QueuedJob> = {}): QueuedJob {
  return {
    key,
    type: 'charge-card',
    retries: 3,
    processInstanceKey: `pi-${key}`,
    bpmnProcessId: 'order',
    processDefinitionVersion: 1,
    elementId: 'charge',
    elementInstanceKey: `ei-${key}`,
    customHeaders: { region: 'eu' },
    account: 'acme',
    partition: 0,
    variables: { orderId: key },
    ...overrides,
  };
}

export function queuedJobs(count: number, overrides: Partial<QueuedJob> = {}, from = 1): QueuedJob[] {
  return Array.from({ length: count }, (_, i) => queuedJob(String(from + i), overrides));
}

export const keysOf = (jobs: readonly { key: string }[]) => jobs.map((job) => job.key);
