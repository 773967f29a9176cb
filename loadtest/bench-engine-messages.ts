// `npm run bench:engine -- --messages`: the message-correlation scenario
// (extension, docs/messages.md) on the durable engine, real PostgreSQL and
// Redis, no HTTP. Lanes each start an instance that waits on a message catch
// event keyed by its own id, publish that message once the start returned,
// and start the next: start → wait on a message → publish → end. A publish
// resolves once every partition committed it, so the instance has completed
// by then. Reports instances per second and the publish latency; then
// checks against Postgres that every instance is COMPLETED and none waits.
// With `event: 'signal'` (--signals) the same lanes wait on a signal catch
// event named by the instance's id (the FEEL name `=id`, the message
// scenario's correlation key, so both evaluate the same) and broadcast
// that signal instead (extension, docs/signals.md): start → wait on a
// signal → broadcast → end.
import { createEngine, engineConfig } from '../engine/partition/index.ts';
import { BenchmarkCheckFailed } from './bench-core-run.ts';
import { summarise, type LatencySummary } from './bench-engine-run.ts';
import type { Scratch, Services } from './bench-engine-services.ts';

const ACCOUNT = 'bench-messages';
const PROCESS_ID = 'message-wait';
const MODEL =
  '<?xml version="1.0" encoding="UTF-8"?>' +
  '<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="http://orca.bench">' +
  '<bpmn:message id="M" name="go"><bpmn:extensionElements><zeebe:subscription correlationKey="=id"/></bpmn:extensionElements></bpmn:message>' +
  `<bpmn:process id="${PROCESS_ID}" isExecutable="true">` +
  '<bpmn:startEvent id="s"/><bpmn:intermediateCatchEvent id="wait"><bpmn:messageEventDefinition messageRef="M"/></bpmn:intermediateCatchEvent><bpmn:endEvent id="e"/>' +
  '<bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="wait"/><bpmn:sequenceFlow id="f2" sourceRef="wait" targetRef="e"/>' +
  '</bpmn:process></bpmn:definitions>';
const SIGNAL_MODEL = MODEL.replace(
  '<bpmn:message id="M" name="go"><bpmn:extensionElements><zeebe:subscription correlationKey="=id"/></bpmn:extensionElements></bpmn:message>',
  '<bpmn:signal id="S" name="=id"/>',
).replace('<bpmn:messageEventDefinition messageRef="M"/>', '<bpmn:signalEventDefinition signalRef="S"/>');

export interface MessageRun {
  event: 'message' | 'signal';
  partitions: number;
  concurrency: number;
  completedInWindow: number;
  windowSeconds: number;
  perSecond: number;
  /** Start called → publish (broadcast) resolved (the instance completed). */
  latency: LatencySummary;
  publishCall: LatencySummary;
  verifiedCompleted: number;
}

export interface MessageOptions {
  services: Services;
  scratch: Scratch;
  seconds: number;
  warmupSeconds: number;
  partitions: number;
  concurrency: number;
  signal?: AbortSignal;
  /** What the instances wait on: a message (the default) or a signal. */
  event?: 'message' | 'signal';
}

export async function runMessageScenario(options: MessageOptions): Promise<MessageRun> {
  const engine = await createEngine(
    engineConfig({
      databaseUrl: options.services.databaseUrl,
      redisUrl: options.services.redisUrl,
      schema: options.scratch.schema,
      redisPrefix: options.scratch.orcaPrefix,
      partitions: options.partitions,
    }),
  );
  const event = options.event ?? 'message';
  try {
    await engine.deploy(ACCOUNT, event === 'message' ? MODEL : SIGNAL_MODEL, 'message-wait.bpmn');
    const now = () => performance.now();
    const windowStart = now() + options.warmupSeconds * 1000;
    const windowEnd = windowStart + options.seconds * 1000;
    const latencies: number[] = [];
    const publishes: number[] = [];
    const started: string[] = [];
    let completedInWindow = 0;
    let next = 0;
    const lane = async () => {
      while (now() < windowEnd) {
        if (options.signal?.aborted) throw new Error('interrupted');
        const id = `m-${next++}`;
        const at = now();
        started.push((await engine.startInstance(ACCOUNT, PROCESS_ID, { id })).processInstanceKey);
        const publishAt = now();
        if (event === 'signal') await engine.broadcastSignal(ACCOUNT, { name: id, variables: { done: true } }, 0);
        else {
          const outcome = await engine.publishMessage(ACCOUNT, { name: 'go', correlationKey: id, variables: { done: true }, timeToLive: 0 }, 0);
          if (!outcome.published) throw new BenchmarkCheckFailed(`publish of ${id} was refused: ${outcome.reason}`);
        }
        const end = now();
        if (at >= windowStart && end <= windowEnd) {
          completedInWindow++;
          latencies.push(end - at);
          publishes.push(end - publishAt);
        }
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, lane));
    const verifiedCompleted = await verify(engine, started);
    return {
      event,
      partitions: options.partitions,
      concurrency: options.concurrency,
      completedInWindow,
      windowSeconds: options.seconds,
      perSecond: completedInWindow / options.seconds,
      latency: summarise(latencies),
      publishCall: summarise(publishes),
      verifiedCompleted,
    };
  } finally {
    await engine.close();
  }
}

/** Every started instance must be COMPLETED in Postgres, and none left waiting. */
async function verify(engine: Awaited<ReturnType<typeof createEngine>>, started: string[]): Promise<number> {
  const stored = new Set<string>();
  let cursor: string | null = null;
  do {
    const page = await engine.store.instances.listInstances(ACCOUNT, { state: 'COMPLETED', bpmnProcessId: PROCESS_ID, limit: 1000, cursor });
    for (const item of page.items) stored.add(item.key);
    cursor = page.nextCursor;
  } while (cursor !== null);
  const missing = started.filter((key) => !stored.has(key));
  if (missing.length > 0) throw new BenchmarkCheckFailed(`${missing.length} instances were published to but are not COMPLETED (first: ${missing[0]})`);
  const left = await engine.store.instances.listInstances(ACCOUNT, { state: 'ACTIVE', limit: 5 });
  if (left.items.length > 0) throw new BenchmarkCheckFailed(`instances left ACTIVE: ${left.items.map((i) => i.key).join(', ')}`);
  return stored.size;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

export function formatMessageReport(run: MessageRun): string {
  const l = run.latency;
  const signal = run.event === 'signal';
  const scenario = signal ? 'start → wait on a signal → broadcast → end' : 'start → wait on a message → publish → end';
  const call = signal ? 'broadcastSignal (home partition, then every other partition)' : 'publishMessage (message partition, then every other partition)';
  return [
    '| scenario | rate | p50 | p99 |',
    '|---|---:|---:|---:|',
    `| ${scenario} (${run.partitions} partitions, ${run.concurrency} in flight) | ${Math.round(run.perSecond)} PI/s | ${ms(l.p50)} | ${ms(l.p99)} |`,
    '',
    `${run.completedInWindow} instances completed in the ${run.windowSeconds.toFixed(1)} s window; ${run.verifiedCompleted} COMPLETED in Postgres, none left waiting.`,
    `${call}: p50 ${ms(run.publishCall.p50)}, p99 ${ms(run.publishCall.p99)}.`,
    '',
    JSON.stringify({ [signal ? 'signal_pi_per_s' : 'message_pi_per_s']: Math.round(run.perSecond), p99_ms: Math.round(l.p99) }),
  ].join('\n');
}
