// Node's default metrics (process CPU and memory, heap, event-loop lag,
// GC) under their usual names, in a registry of their own: they describe
// the process, not one service in it, and prom-client starts a sampler
// per registry it collects them into, so there is one set per process,
// made on the first scrape, however many services a process (a test run)
// creates.
import { collectDefaultMetrics, Registry } from 'prom-client';

let registry: Registry | undefined;

export function processRegistry(): Registry {
  if (registry === undefined) {
    registry = new Registry();
    collectDefaultMetrics({ register: registry });
  }
  return registry;
}
