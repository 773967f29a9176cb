// Starters at a fixed arrival rate: RATE instances per second for DURATION,
// whatever the latency (k6's constant-arrival-rate executor; an arrival that
// finds every VU busy is dropped and shows as dropped_iterations). setup()
// deploys models/service-task.bpmn (free) unless DEPLOY=false, then each
// iteration starts one instance (1 credit) carrying `k6StartedAt`, so the job
// workers of job-workers.js can measure the round trip. Nothing here
// completes the jobs: run job-workers.js beside it, or use end-to-end.js.
//   k6 run -e BASE_URL=https://orca.example.com -e API_KEY=… -e RATE=100 -e DURATION=5m start-instances.js
/* global open */
import { envDuration, envFlag, envNumber, envString } from './lib/env.js';
import { deployModel, startInstance } from './lib/orca-api.js';

const RATE = envNumber('RATE', 50, { min: 1, max: 100000, integer: true });
const DURATION = envDuration('DURATION', '1m');
const P99_MS = envNumber('P99_MS', 1000, { min: 1 });
const MAX_FAILED = envNumber('MAX_FAILED', 0.01, { min: 0, max: 1 });
const DEPLOY = envFlag('DEPLOY', true);
const BPMN_PROCESS_ID = envString('BPMN_PROCESS_ID', 'orca-load-service-task');
// open() reads in the init context, relative to this script; k6 archives carry the file along.
const MODEL = DEPLOY ? open('./models/service-task.bpmn') : '';

/** @type {import('k6/options').Options} */
export const options = {
  scenarios: {
    starters: {
      executor: 'constant-arrival-rate',
      rate: RATE,
      timeUnit: '1s',
      duration: DURATION,
      // A start takes tens of milliseconds: a VU per 10 arrivals/s to begin with, more if the service slows down.
      preAllocatedVUs: envNumber('PRE_ALLOCATED_VUS', Math.max(5, Math.ceil(RATE / 10)), { min: 1, integer: true }),
      maxVUs: envNumber('MAX_VUS', Math.max(50, RATE * 2), { min: 1, integer: true }),
    },
  },
  thresholds: {
    http_req_failed: [`rate<${MAX_FAILED}`],
    'http_req_duration{op:start}': [`p(99)<${P99_MS}`],
    checks: [`rate>${1 - MAX_FAILED}`],
  },
};

/** @returns {{ bpmnProcessId: string }} */
export function setup() {
  return { bpmnProcessId: DEPLOY ? deployModel(MODEL, 'service-task.bpmn') : BPMN_PROCESS_ID };
}

/** @param {{ bpmnProcessId: string }} data */
export default function (data) {
  startInstance(data.bpmnProcessId, { k6StartedAt: Date.now() });
}
