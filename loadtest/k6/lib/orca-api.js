// The Orca REST calls the k6 scripts make, in one place: the base URL and
// API key (BASE_URL, API_KEY), the X-API-Key header, and the tags every
// request carries. `name` groups URLs that hold a key (one time series for
// /api/v1/jobs/:key/complete, not one per job) and `op` names the operation,
// so thresholds can target one call: 'http_req_duration{op:start}'.
// Expected answers are declared per call (a 409 on claim is a lost race, not
// a failure), so `http_req_failed` counts only real failures.
import { check } from 'k6';
import http from 'k6/http';
import { envString } from './env.js';

export const BASE_URL = envString('BASE_URL', 'http://localhost:8080').replace(/\/+$/, '');
export const API_KEY = envString('API_KEY');
/** Per request; an activation adds its long-poll wait on top. */
export const REQUEST_TIMEOUT_MS = 30000;

/**
 * @typedef {{ key: string, type: string, retries: number, processInstanceKey: string, bpmnProcessId: string,
 *   elementId: string, variables: Record<string, unknown>, customHeaders: Record<string, string>, worker: string }} Job
 * @typedef {{ id: string, elementId: string, processInstanceKey: string, bpmnProcessId: string,
 *   assignee: string | null, state: string, createdAt: string }} Task
 */

/**
 * @param {string} op
 * @param {string} name
 * @param {{ contentType?: string, timeoutMs?: number, expected?: number[] }} [extra]
 * @returns {import('k6/http').Params}
 */
function params(op, name, extra = {}) {
  /** @type {import('k6/http').Params} */
  const result = {
    headers: { 'X-API-Key': API_KEY, 'Content-Type': extra.contentType ?? 'application/json' },
    tags: { op, name },
    timeout: extra.timeoutMs ?? REQUEST_TIMEOUT_MS,
  };
  if (extra.expected !== undefined) result.responseCallback = http.expectedStatuses(...extra.expected);
  return result;
}

/**
 * The parsed JSON body, or undefined when there is none or it is not JSON.
 * @param {import('k6/http').RefinedResponse<import('k6/http').ResponseType | undefined>} res
 * @returns {any}
 */
function body(res) {
  if (typeof res.body !== 'string' || res.body === '') return undefined;
  try {
    return JSON.parse(res.body);
  } catch {
    return undefined;
  }
}

/**
 * Deploys a BPMN model (free of charge); returns the first process id. Throws on failure: nothing else can run.
 * @param {string} xml
 * @param {string} resourceName
 * @returns {string}
 */
export function deployModel(xml, resourceName) {
  const res = http.post(
    `${BASE_URL}/api/v1/process-definitions?resourceName=${encodeURIComponent(resourceName)}`,
    xml,
    params('deploy', 'POST /api/v1/process-definitions', { contentType: 'application/xml' }),
  );
  const answer = body(res);
  if (res.status !== 200 || typeof answer?.id !== 'string') throw new Error(`deploying ${resourceName} failed: ${res.status} ${res.body}`);
  return answer.id;
}

/**
 * Starts an instance (1 credit); returns its key, or undefined when the start failed.
 * @param {string} bpmnProcessId
 * @param {Record<string, unknown>} variables
 * @returns {string | undefined}
 */
export function startInstance(bpmnProcessId, variables) {
  const res = http.post(
    `${BASE_URL}/api/v1/process-instances`,
    JSON.stringify({ bpmnProcessId, variables }),
    params('start', 'POST /api/v1/process-instances'),
  );
  const key = body(res)?.processInstanceKey;
  check(res, { 'start: 201 with a processInstanceKey': (r) => r.status === 201 && typeof key === 'string' });
  return typeof key === 'string' ? key : undefined;
}

/**
 * Activates up to maxJobsToActivate jobs of a type. With requestTimeoutMs > 0 the server waits
 * that long for a job (Orca's long-polling extension); without, it answers at once.
 * @param {string} type
 * @param {number} maxJobsToActivate
 * @param {{ requestTimeoutMs?: number, worker?: string }} [options]
 * @returns {Job[]}
 */
export function activateJobs(type, maxJobsToActivate, options = {}) {
  const wait = options.requestTimeoutMs ?? 0;
  const res = http.post(
    `${BASE_URL}/api/v1/jobs/activate`,
    JSON.stringify({ type, maxJobsToActivate, worker: options.worker, ...(wait > 0 ? { requestTimeout: wait } : {}) }),
    // The long-poll wait is not latency: tag it so thresholds can leave it out.
    {
      ...params('activate', 'POST /api/v1/jobs/activate', { timeoutMs: wait + REQUEST_TIMEOUT_MS }),
      tags: { op: 'activate', name: 'POST /api/v1/jobs/activate', long_poll: String(wait > 0) },
    },
  );
  const jobs = body(res)?.jobs;
  check(res, { 'activate: 200 with a jobs array': (r) => r.status === 200 && Array.isArray(jobs) });
  return Array.isArray(jobs) ? /** @type {Job[]} */ (jobs) : [];
}

/**
 * Completes the jobs in parallel (one batch of requests); says for each job whether it was acknowledged.
 * A 404 means the job is gone (SPEC.md); it counts as a failure here, since nobody else holds these jobs.
 * @param {Job[]} jobs
 * @param {(job: Job) => Record<string, unknown>} variablesOf
 * @returns {boolean[]}
 */
export function completeJobs(jobs, variablesOf) {
  if (jobs.length === 0) return [];
  const responses = http.batch(
    jobs.map((job) => ({
      method: 'POST',
      url: `${BASE_URL}/api/v1/jobs/${job.key}/complete`,
      body: JSON.stringify({ variables: variablesOf(job) }),
      params: params('complete', 'POST /api/v1/jobs/:key/complete'),
    })),
  );
  return responses.map((res) => check(res, { 'complete: 204': (r) => r.status === 204 }));
}

/**
 * Fails a job; with retries above zero it is offered again at once (SPEC.md).
 * @param {string} key
 * @param {number} retries
 * @param {string} errorMessage
 * @returns {boolean}
 */
export function failJob(key, retries, errorMessage) {
  const res = http.post(`${BASE_URL}/api/v1/jobs/${key}/fail`, JSON.stringify({ retries, errorMessage }), params('fail', 'POST /api/v1/jobs/:key/fail'));
  return check(res, { 'fail: 204': (r) => r.status === 204 });
}

/**
 * Unassigned open tasks of a process, oldest first.
 * @param {string} bpmnProcessId
 * @param {number} limit
 * @returns {Task[]}
 */
export function listOpenTasks(bpmnProcessId, limit) {
  const query = `filter.assigned=false&filter.bpmnProcessId=${encodeURIComponent(bpmnProcessId)}&limit=${limit}`;
  const res = http.get(`${BASE_URL}/api/v1/tasks?${query}`, params('list-tasks', 'GET /api/v1/tasks'));
  const items = body(res)?.items;
  check(res, { 'list tasks: 200 with items': (r) => r.status === 200 && Array.isArray(items) });
  return Array.isArray(items) ? /** @type {Task[]} */ (items) : [];
}

/**
 * Claims a task. 'conflict' when another user got it first (409, an expected outcome
 * on a shared task list), 'gone' when it was completed meanwhile (404), else 'claimed' or 'failed'.
 * @param {string} id
 * @param {string} assignee
 * @returns {'claimed' | 'conflict' | 'gone' | 'failed'}
 */
export function claimTask(id, assignee) {
  const res = http.post(
    `${BASE_URL}/api/v1/tasks/${id}/claim`,
    JSON.stringify({ assignee }),
    params('claim', 'POST /api/v1/tasks/:id/claim', { expected: [200, 404, 409] }),
  );
  if (res.status === 409) return 'conflict';
  if (res.status === 404) return 'gone';
  return check(res, { 'claim: 200': (r) => r.status === 200 }) ? 'claimed' : 'failed';
}

/**
 * Completes a claimed task: over REST (1 credit) or with the free GraphQL mutation completeTask.
 * @param {string} id
 * @param {Record<string, unknown>} variables
 * @param {'rest' | 'graphql'} via
 * @returns {boolean}
 */
export function completeTask(id, variables, via) {
  if (via === 'rest') {
    const res = http.post(`${BASE_URL}/api/v1/tasks/${id}/complete`, JSON.stringify({ variables }), params('complete-task', 'POST /api/v1/tasks/:id/complete'));
    return check(res, { 'complete task: 204': (r) => r.status === 204 });
  }
  const mutation = 'mutation($id: ID!, $variables: JSON) { completeTask(id: $id, variables: $variables) { id completed } }';
  const res = http.post(
    `${BASE_URL}/api/v1/graphql`,
    JSON.stringify({ query: mutation, variables: { id, variables } }),
    params('complete-task', 'POST /api/v1/graphql completeTask'),
  );
  const answer = body(res);
  // GraphQL reports a refused completion in `errors` with status 200.
  return check(res, {
    'complete task (GraphQL): completed': (r) => r.status === 200 && answer?.errors === undefined && answer?.data?.completeTask?.completed === true,
  });
}

/**
 * One instance's state (ACTIVE, COMPLETED, TERMINATED, INCIDENT), or undefined when it cannot be read.
 * @param {string} key
 * @returns {string | undefined}
 */
export function instanceState(key) {
  const res = http.get(`${BASE_URL}/api/v1/process-instances/${key}`, params('get-instance', 'GET /api/v1/process-instances/:key'));
  const state = body(res)?.state;
  return typeof state === 'string' ? state : undefined;
}
