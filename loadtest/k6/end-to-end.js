// Starters and job workers in one run: the k6 counterpart of
// `npm run bench:e2e`. Starters arrive at RATE instances per second for
// DURATION (constant-arrival-rate); WORKERS virtual users activate up to
// MAX_JOBS jobs per call and complete them, for DRAIN longer than the starts. Because both sides run in this
// k6 process, the workers can time each instance from the start request
// (k6StartedAt) to the acknowledged completion: orca_start_to_complete, with
// its own p(99) threshold (E2E_P99_MS). Workers long-poll by default here
// (LONG_POLL_MS=1000), because sleeping 1 to 5 s on an empty answer would
// put those seconds into every latency; LONG_POLL_MS=0 polls as SPEC.md says.
//   k6 run -e BASE_URL=… -e API_KEY=… -e RATE=200 -e DURATION=2m end-to-end.js
/* global open */
import exec from 'k6/execution';
import { envDuration, envFlag, envNumber, envString } from './lib/env.js';
import { pollOnce, workerSettings } from './lib/job-worker.js';
import { deployModel, startInstance } from './lib/orca-api.js';

const RATE = envNumber('RATE', 50, { min: 1, max: 100000, integer: true });
const DURATION = envDuration('DURATION', '1m');
const WORKERS = envNumber('WORKERS', 8, { min: 1, max: 10000, integer: true });
const DRAIN = envDuration('DRAIN', '10s');
const P99_MS = envNumber('P99_MS', 1000, { min: 1 });
const E2E_P99_MS = envNumber('E2E_P99_MS', 2000, { min: 1 });
const MAX_FAILED = envNumber('MAX_FAILED', 0.01, { min: 0, max: 1 });
const DEPLOY = envFlag('DEPLOY', true);
const BPMN_PROCESS_ID = envString('BPMN_PROCESS_ID', 'orca-load-service-task');
const SETTINGS = workerSettings(1000);
const MODEL = DEPLOY ? open('./models/service-task.bpmn') : '';

/** @type {import('k6/options').Options} */
export const options = {
  scenarios: {
    starters: {
      executor: 'constant-arrival-rate',
      exec: 'default',
      rate: RATE,
      timeUnit: '1s',
      duration: DURATION,
      preAllocatedVUs: envNumber('PRE_ALLOCATED_VUS', Math.max(5, Math.ceil(RATE / 10)), { min: 1, integer: true }),
      maxVUs: envNumber('MAX_VUS', Math.max(50, RATE * 2), { min: 1, integer: true }),
    },
    workers: {
      executor: 'constant-vus',
      exec: 'worker',
      vus: WORKERS,
      // The workers go on for DRAIN after the last start, so its job is completed too (Go durations add up: "1m" + "10s").
      duration: `${DURATION}${DRAIN}`,
      gracefulStop: `${Math.ceil(SETTINGS.longPollMs / 1000) + 35}s`,
    },
  },
  thresholds: {
    http_req_failed: [`rate<${MAX_FAILED}`],
    'http_req_duration{op:start}': [`p(99)<${P99_MS}`],
    'http_req_duration{op:complete}': [`p(99)<${P99_MS}`],
    orca_start_to_complete: [`p(99)<${E2E_P99_MS}`],
    checks: [`rate>${1 - MAX_FAILED}`],
  },
};

/** @returns {{ bpmnProcessId: string }} */
export function setup() {
  return { bpmnProcessId: DEPLOY ? deployModel(MODEL, 'service-task.bpmn') : BPMN_PROCESS_ID };
}

/** A starter: one instance per arrival. @param {{ bpmnProcessId: string }} data */
export default function (data) {
  startInstance(data.bpmnProcessId, { k6StartedAt: Date.now() });
}

/** A worker: one poll and the completion of what it brought. */
export function worker() {
  pollOnce(SETTINGS, `k6-worker-${exec.vu.idInTest}`);
}
