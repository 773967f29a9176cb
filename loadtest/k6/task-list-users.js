// Task-list users: USERS people working through the human task list for
// DURATION. Each round a user lists the open, unassigned tasks of the
// process, picks one at random (so users do not all race for the oldest),
// claims it, thinks for THINK_TIME_S seconds and completes it; with nothing
// on the list they wait 1 to 5 seconds, like a polling worker. A 409 on claim
// means someone else got the task first: expected on a shared list, counted
// in orca_task_claim_conflicts rather than as a failed request. A feeder
// scenario starts RATE user-task instances per second (models/user-task.bpmn,
// deployed in setup) so there is work; FEED=false leaves that to others.
// Completion is over REST (1 credit each) unless COMPLETE_VIA=graphql
// (the free completeTask mutation).
//   k6 run -e BASE_URL=… -e API_KEY=… -e RATE=5 -e USERS=20 -e DURATION=5m task-list-users.js
/* global open */
import { sleep } from 'k6';
import exec from 'k6/execution';
import { Counter, Trend } from 'k6/metrics';
import { envDuration, envFlag, envNumber, envString } from './lib/env.js';
import { claimTask, completeTask, deployModel, listOpenTasks, startInstance } from './lib/orca-api.js';

const RATE = envNumber('RATE', 5, { min: 1, max: 100000, integer: true });
const DURATION = envDuration('DURATION', '1m');
const USERS = envNumber('USERS', 10, { min: 1, max: 10000, integer: true });
const THINK_TIME_S = envNumber('THINK_TIME_S', 1, { min: 0, max: 600 });
const PAGE = envNumber('TASK_PAGE', 20, { min: 1, max: 1000, integer: true });
const P99_MS = envNumber('P99_MS', 1000, { min: 1 });
const MAX_FAILED = envNumber('MAX_FAILED', 0.01, { min: 0, max: 1 });
const FEED = envFlag('FEED', true);
const DEPLOY = envFlag('DEPLOY', true);
const BPMN_PROCESS_ID = envString('BPMN_PROCESS_ID', 'orca-load-user-task');
const COMPLETE_VIA = completeVia(envString('COMPLETE_VIA', 'rest'));
const MODEL = DEPLOY ? open('./models/user-task.bpmn') : '';

const claimConflicts = new Counter('orca_task_claim_conflicts');
const tasksCompleted = new Counter('orca_tasks_completed');
/** Task created (its createdAt, the server's clock) → claimed by a user. */
const taskWait = new Trend('orca_task_wait', true);

/** @type {import('k6/options').Scenario} */
const users = {
  executor: 'constant-vus',
  exec: 'default',
  vus: USERS,
  duration: DURATION,
  gracefulStop: `${Math.ceil(THINK_TIME_S * 2) + 35}s`,
};

/** @type {import('k6/options').Options} */
export const options = {
  scenarios: FEED
    ? {
        users,
        feed: {
          executor: 'constant-arrival-rate',
          exec: 'feed',
          rate: RATE,
          timeUnit: '1s',
          duration: DURATION,
          preAllocatedVUs: Math.max(2, Math.ceil(RATE / 10)),
          maxVUs: Math.max(20, RATE * 2),
        },
      }
    : { users },
  thresholds: {
    http_req_failed: [`rate<${MAX_FAILED}`],
    'http_req_duration{op:list-tasks}': [`p(99)<${P99_MS}`],
    'http_req_duration{op:claim}': [`p(99)<${P99_MS}`],
    'http_req_duration{op:complete-task}': [`p(99)<${P99_MS}`],
    checks: [`rate>${1 - MAX_FAILED}`],
  },
};

/** @returns {{ bpmnProcessId: string }} */
export function setup() {
  return { bpmnProcessId: DEPLOY ? deployModel(MODEL, 'user-task.bpmn') : BPMN_PROCESS_ID };
}

/** A task-list user's round: list, pick, claim, think, complete. @param {{ bpmnProcessId: string }} data */
export default function (data) {
  const tasks = listOpenTasks(data.bpmnProcessId, PAGE);
  if (tasks.length === 0) {
    sleep(1 + Math.random() * 4);
    return;
  }
  const task = tasks[Math.floor(Math.random() * tasks.length)];
  const me = `k6-user-${exec.vu.idInTest}`;
  const claim = claimTask(task.id, me);
  if (claim === 'conflict') claimConflicts.add(1);
  if (claim !== 'claimed') return;
  const created = Date.parse(task.createdAt);
  if (!Number.isNaN(created)) taskWait.add(Math.max(0, Date.now() - created));
  if (THINK_TIME_S > 0) sleep(THINK_TIME_S * (0.5 + Math.random()));
  if (completeTask(task.id, { reviewedBy: me }, COMPLETE_VIA)) tasksCompleted.add(1);
}

/**
 * @param {string} value
 * @returns {'rest' | 'graphql'}
 */
function completeVia(value) {
  if (value === 'rest' || value === 'graphql') return value;
  throw new Error(`COMPLETE_VIA=${value}: must be rest or graphql`);
}

/** The feeder: one user-task instance per arrival. @param {{ bpmnProcessId: string }} data */
export function feed(data) {
  startInstance(data.bpmnProcessId, { k6StartedAt: Date.now() });
}
