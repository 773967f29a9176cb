// The partition canary: proof that every partition still does work. With an
// account of its own it deploys start → service task → end, starts
// instances until each partition has one (a start lands on a random
// partition, and the partition is in the high bits of the key it returns),
// then activates and completes their jobs. A partition passes when each of
// its instances went from the start request to COMPLETED within the bound;
// one that answers a start with a 503 naming it, or never hands out or
// completes the job in time, has stopped answering. Requests wait longer
// than the bound (for the server's own reply timeout) so a stalled
// partition is named by its 503 rather than lost in a client timeout.
import { partitionOfKey } from '../../engine/partition/keys.ts';
import { serviceProcess } from '../../test/api/workflow-support.ts';

export interface PartitionCheck {
  ok: boolean;
  /** Start request to COMPLETED (or to the failure), ms. */
  ms: number;
  problem?: string;
}

export interface CanaryResult {
  ok: boolean;
  partitions: Map<number, PartitionCheck>;
  /** Partitions no start landed on (chance, not a failure by itself). */
  unreached: number[];
  /** A failure not tied to one partition (deploy refused, a start without an answer). */
  problem?: string;
}

export interface CanaryOptions {
  baseUrl: string;
  apiKey: string;
  partitions: number;
  boundMs: number;
  /** Names the job type, so runs on a shared account never take each other's jobs. */
  run: number;
}

/** Starts are on random partitions: with 6 per partition, missing one of 8 by chance is about 1 in 600. */
const MAX_STARTS_PER_PARTITION = 6;
const REQUEST_WAIT_MS = 15_000;

interface Started {
  key: string;
  partition: number;
  t0: number;
  done?: PartitionCheck;
}

export async function runCanary(options: CanaryOptions): Promise<CanaryResult> {
  const { baseUrl, apiKey, partitions, boundMs } = options;
  const type = `fuzz-canary-${options.run}`;
  const call = async (method: string, path: string, body?: unknown, contentType = 'application/json') => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': contentType }) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_WAIT_MS),
    });
    const text = await response.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // Not JSON: the status says enough.
    }
    return { status: response.status, json, text };
  };
  const result: CanaryResult = { ok: true, partitions: new Map(), unreached: [] };
  const fail = (partition: number, ms: number, problem: string) => {
    result.ok = false;
    if (result.partitions.get(partition)?.ok !== false) result.partitions.set(partition, { ok: false, ms, problem });
  };

  const deployed = await call('POST', `/api/v1/process-definitions?resourceName=${type}.bpmn`, serviceProcess(type, type), 'application/xml');
  if (deployed.status !== 200)
    return { ...result, ok: false, problem: `deploying the canary model answered ${deployed.status}: ${deployed.text.slice(0, 300)}` };

  // Starts go on in `partitions` lanes until each partition has one, so a start that waits on a stalled
  // partition holds up one lane only; jobs are completed meanwhile, so a healthy partition's time is its own.
  const started: Started[] = [];
  const covered = new Set<number>();
  let attempts = 0;
  let startsDone = false;
  const startOne = async () => {
    const t0 = performance.now();
    try {
      const res = await call('POST', '/api/v1/process-instances', { bpmnProcessId: type, variables: { canary: true } });
      const ms = performance.now() - t0;
      const key = String(res.json.processInstanceKey ?? '');
      const partition = res.status === 201 ? partitionOfKey(key) : partitionNamed(res.json.detail);
      if (partition === undefined) {
        result.ok = false;
        result.problem ??= `a start answered ${res.status} naming no partition: ${res.text.slice(0, 300)}`;
        return;
      }
      covered.add(partition);
      if (res.status !== 201) fail(partition, ms, `start answered ${res.status}: ${String(res.json.detail ?? res.text).slice(0, 200)}`);
      else if (ms > boundMs) fail(partition, ms, `start took ${Math.round(ms)} ms`);
      else started.push({ key, partition, t0 });
    } catch (err) {
      result.ok = false;
      result.problem ??= `a start got no answer within ${REQUEST_WAIT_MS} ms (${(err as Error).message})`;
    }
  };
  const lane = async () => {
    while (covered.size < partitions && attempts < partitions * MAX_STARTS_PER_PARTITION) {
      attempts++;
      await startOne();
    }
  };
  const starting = Promise.all(Array.from({ length: partitions }, lane)).finally(() => (startsDone = true));
  await Promise.all([starting, completeAll(started, type, boundMs, call, () => startsDone)]);
  for (let p = 0; p < partitions; p++) if (!covered.has(p)) result.unreached.push(p);

  for (const s of started) {
    const check = s.done ?? { ok: false, ms: performance.now() - s.t0, problem: 'its job was not handed out within the bound' };
    if (!check.ok) fail(s.partition, check.ms, check.problem!);
    else if (!result.partitions.has(s.partition)) result.partitions.set(s.partition, check);
  }
  return result;
}

function partitionNamed(detail: unknown): number | undefined {
  const match = /partition (\d+)/i.exec(String(detail ?? ''));
  return match ? Number(match[1]) : undefined;
}

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; json: Record<string, unknown>; text: string }>;

/** Activates the canary's jobs until the starts are over and each instance is COMPLETED or past the bound. */
async function completeAll(started: Started[], type: string, boundMs: number, call: Call, startsDone: () => boolean): Promise<void> {
  const pending = () => started.filter((s) => s.done === undefined && performance.now() - s.t0 < boundMs);
  // The leader queues a job before it answers the start, so a job can come before its instance's key.
  let held: { key: string; processInstanceKey: string }[] = [];
  while (!startsDone() || pending().length > 0) {
    const res = await call('POST', '/api/v1/jobs/activate', { type, maxJobsToActivate: 100, worker: 'fuzz-canary' });
    const jobs = res.status === 200 ? ((res.json.jobs as typeof held | undefined) ?? []) : [];
    held = [...held, ...jobs];
    const byKey = new Map(started.map((s) => [s.key, s]));
    const ready = held.filter((job) => byKey.has(job.processInstanceKey));
    held = held.filter((job) => !byKey.has(job.processInstanceKey));
    await Promise.all(
      ready.map(async (job) => {
        const s = byKey.get(job.processInstanceKey)!;
        if (s.done !== undefined) return;
        const done = await call('POST', `/api/v1/jobs/${job.key}/complete`, { variables: { canaryDone: true } });
        if (done.status !== 204) {
          s.done = { ok: false, ms: performance.now() - s.t0, problem: `completing its job answered ${done.status}: ${done.text.slice(0, 200)}` };
          return;
        }
        const instance = await call('GET', `/api/v1/process-instances/${s.key}`);
        const ms = performance.now() - s.t0;
        if (instance.json.state !== 'COMPLETED')
          s.done = { ok: false, ms, problem: `after its job completed the instance is ${String(instance.json.state ?? instance.status)}` };
        else s.done = ms <= boundMs ? { ok: true, ms } : { ok: false, ms, problem: `completed after ${Math.round(ms)} ms` };
      }),
    );
    if (res.status !== 200) {
      for (const s of pending()) s.done = { ok: false, ms: performance.now() - s.t0, problem: `activation answered ${res.status}: ${res.text.slice(0, 200)}` };
      if (!startsDone()) await new Promise((resolve) => setTimeout(resolve, 100));
    } else if (jobs.length === 0) await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
