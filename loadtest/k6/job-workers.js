// Job workers: WORKERS virtual users poll for jobs of JOB_TYPE for DURATION,
// activating up to MAX_JOBS (default 32) per call and completing all of them
// in one parallel batch. By default they poll as SPEC.md says: an empty
// answer comes at once and the worker sleeps 1 to 5 seconds before the next
// poll. LONG_POLL_MS > 0 uses Orca's long-polling extension (the server holds
// the activation up to that long), which needs no sleep and hands jobs over
// sooner. Pair it with start-instances.js (or anything else that starts
// instances); jobs from instances started by these scripts also feed
// orca_start_to_complete and orca_start_to_activation.
//   k6 run -e BASE_URL=… -e API_KEY=… -e WORKERS=20 -e DURATION=5m job-workers.js
import exec from 'k6/execution';
import { envDuration, envNumber } from './lib/env.js';
import { pollOnce, workerSettings } from './lib/job-worker.js';

const WORKERS = envNumber('WORKERS', 10, { min: 1, max: 10000, integer: true });
const DURATION = envDuration('DURATION', '1m');
const P99_MS = envNumber('P99_MS', 1000, { min: 1 });
const MAX_FAILED = envNumber('MAX_FAILED', 0.01, { min: 0, max: 1 });
const SETTINGS = workerSettings(0);

/** @type {import('k6/options').Options['thresholds']} */
const thresholds = {
  http_req_failed: [`rate<${MAX_FAILED}`],
  'http_req_duration{op:complete}': [`p(99)<${P99_MS}`],
  checks: [`rate>${1 - MAX_FAILED}`],
};
// A long poll lasts as long as it waits: only a plain activation has a latency worth a threshold.
if (SETTINGS.longPollMs === 0) thresholds['http_req_duration{op:activate}'] = [`p(99)<${P99_MS}`];

/** @type {import('k6/options').Options} */
export const options = {
  scenarios: {
    workers: {
      executor: 'constant-vus',
      vus: WORKERS,
      duration: DURATION,
      // Let a held long poll or a 5 s sleep end, and its jobs be completed, before the VU stops.
      gracefulStop: `${Math.ceil(SETTINGS.longPollMs / 1000) + 35}s`,
    },
  },
  thresholds,
};

export default function () {
  pollOnce(SETTINGS, `k6-worker-${exec.vu.idInTest}`);
}
