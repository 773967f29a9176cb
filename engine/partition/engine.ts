// createEngine(config, options): the durable engine behind one programmatic API, for
// the REST layer and tests. It opens the store (migrating it) and the queues,
// runs a shard (role `all` or `engine`), and serves the API side (role `all`
// or `api`): commands go to the owning partition through the command client
// (command-client.ts) and wait for the committed reply; job activation is
// served from the queues directly. A client's key for a change (the API's
// Idempotency-Key) rides on the command, or for a deploy on request_keys.
// This module is the composition root and the API over those parts.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { EngineConfig } from '../config.ts';
import { compileCmmn } from '../cmmn/index.ts';
import { compileDmn } from '../dmn/index.ts';
import { NO_METRICS, type EngineGauges, type EngineMetrics } from '../metrics.ts';
import { inSpan, type Tracer } from '../tracing.ts';
import { compileBpmn, withInlineScripts } from '../model/index.ts';
import type { ModelWarning } from '../model/types.ts';
import { ModelRejected } from './model-rejected.ts';
import { createQueues, type ActivatedJob, type Queues } from '../queue/index.ts';
import type { AdHocActivation, AdHocJobResult, Variables } from '../runtime/types.ts';
import { createStore, openDatabase, type Database, type Store, type Tx } from '../store/index.ts';
import { caseClient, type CaseEngine } from './case-client.ts';
import { commandClient, freshKeys, withTimeout } from './command-client.ts';
import type { CommandOrigin, EngineCommand, PublishOutcome, SignalOutcome, StartedInstance } from './commands.ts';
import { publishMessage, type MessageToPublish } from './message-publish.ts';
import { messageStartTargets, signalStartTargets } from './message-starts.ts';
import { broadcastSignal } from './signal-broadcast.ts';
import { EngineError, unavailableAsEngineError } from './engine-error.ts';
import { createRedisFlushMarker, type FlushMarker } from './flush-marker.ts';
import { jobActivation } from './job-activation.ts';
import { hashToPartition, partitionOfKey, scoped } from './keys.ts';
import { ModelCache } from './model-cache.ts';
import type { EngineLog } from './log.ts';
import { FREE_STARTS, ledgerStartCharges, type EventStartCharges } from './event-start-charges.ts';
import { Shard } from './shard.ts';
import type { WebhookTaker } from './webhook-taker.ts';

/**
 * What wires an engine without being configuration (that is EngineConfig,
 * engine/config.ts): its identity among the shards, and hooks for tests.
 */
export interface EngineOptions {
  /** Shard identity for leases, unique per engine (default: host, pid and a random part). */
  owner?: string;
  /**
   * On Postgres, the partition leaders' group commit runs in a worker thread
   * of its own (commit-thread.ts; default true). False keeps it on the main
   * thread, going through `store.commitBatches` — for tests that hold or
   * fail commits there.
   */
  commitThread?: boolean;
  /** Where partition leaders report commands they set aside (default: JSON lines on stderr). */
  log?: EngineLog;
  /** Tests: a command retention below the configuration's floor of a minute, so pruning can be watched. */
  commandRetentionMs?: number;
  /** Where the engine counts what it does (default: nowhere); the service wires it to prom-client. */
  metrics?: EngineMetrics;
  /** Tracing on: the tracer of the service's OpenTelemetry SDK (api/tracing/); absent, the engine makes no tracing call. */
  tracer?: Tracer;
  /** Credits on (ORCA_CREDITS): what a thrown signal or a buffered message starts is charged (event-start-charges.ts); absent, free. */
  credits?: { enabled: boolean; lowThreshold?: number };
  /** Tests: how event starts are charged, instead of what `credits` makes. */
  charges?: EventStartCharges;
}

export { ModelRejected };

/**
 * A client's key for a change (the API's Idempotency-Key): within the
 * command retention the same key gets the first result instead of a second
 * change. Starts and job commands keep it in their partition's command log,
 * deploys in request_keys.
 */
export interface CommandOptions {
  /** The client's key, scoped by account here. */
  commandKey?: string;
  /**
   * With commandKey: a digest of the request the key names. The first result
   * then answers only that request; the key sent with another fingerprint is
   * refused with KEY_REUSED and changes nothing.
   */
  fingerprint?: string;
  /** Called when the answer is an earlier request's result under the key: nothing was applied now (the API charges no second time). */
  onReplay?: () => void;
}

export interface DeployOptions extends CommandOptions {
  /** Extension: script tasks with a zeebe:script expression are evaluated inline, as Zeebe does; stored with the version. */
  inlineScripts?: boolean;
}

export interface DeployedProcess {
  bpmnProcessId: string;
  version: number;
  isNew: boolean;
}

/** What a worker throws instead of completing its job. */
export interface JobError {
  errorCode: string;
  errorMessage?: string;
  variables?: Variables;
}

export interface Engine extends CaseEngine {
  readonly store: Store;
  readonly queues: Queues;
  readonly partitions: number;
  deploy(account: string, xml: string, resourceName: string, options?: CommandOptions): Promise<DeployedProcess[]>;
  /** deploy, with the model's warnings: what deploys but runs differently from Camunda 8 (engine/model/camunda-differences.ts). */
  deployModel(
    account: string,
    xml: string,
    resourceName: string,
    options?: DeployOptions,
  ): Promise<{ deployments: DeployedProcess[]; warnings: ModelWarning[] }>;
  deployDecisions(
    account: string,
    xml: string,
    resourceName: string,
    options?: CommandOptions,
  ): Promise<{ decisionId: string; version: number; isNew: boolean }[]>;
  /** Deploys the cases of a CMMN document (versioned like processes), with the document's warnings. */
  deployCases(
    account: string,
    xml: string,
    resourceName: string,
    options?: CommandOptions,
  ): Promise<{ deployments: { caseDefinitionId: string; version: number; isNew: boolean }[]; warnings: ModelWarning[] }>;
  /** Removes every version of a process (NOT_FOUND when none; INVALID_STATE while it has live instances or armed start timers). */
  deleteProcess(account: string, bpmnProcessId: string): Promise<{ versions: number }>;
  /** Removes every version of a decision (NOT_FOUND when none). */
  deleteDecision(account: string, decisionId: string): Promise<{ versions: number }>;
  startInstance(account: string, bpmnProcessId: string, variables?: Variables, options?: CommandOptions): Promise<StartedInstance>;
  /**
   * `timeoutMs` (extension): each job is held by `worker` until then — the deadline committed by its
   * partition's leader before the jobs are returned — and offered again if neither completed nor failed by then.
   */
  activateJobs(account: string, type: string, max: number, worker: string, requestTimeoutMs?: number, timeoutMs?: number): Promise<ActivatedJob[]>;
  completeJob(account: string, jobKey: string, variables?: Variables, options?: CommandOptions, result?: AdHocJobResult): Promise<void>;
  /** `retryBackOff` (ms, extension): offer the job again after it instead of at once. */
  failJob(account: string, jobKey: string, retries: number, errorMessage?: string, options?: CommandOptions, retryBackOff?: number): Promise<void>;
  /** A worker's BPMN error for its job (extension): caught by the nearest matching error catch, else an incident. */
  throwJobError(account: string, jobKey: string, error: JobError, options?: CommandOptions): Promise<void>;
  /** Whether a command under the client's key (a start's, or one on job `jobKey`) has a committed result: one index probe, asked before charging. */
  hasCommandResult(account: string, commandKey: string, jobKey?: string): Promise<boolean>;
  cancelInstance(account: string, instanceKey: string): Promise<void>;
  /** Extension: starts a path at each of `elements` in the running ad-hoc subprocess `elementInstanceKey` of the instance. */
  activateAdHocElements(account: string, instanceKey: string, elementInstanceKey: string, elements: AdHocActivation[]): Promise<void>;
  /** Extension: how many instances a message (signal) of this name would start: latest versions with a message (signal) start event of that name. */
  eventStarts(account: string, event: 'message' | 'signal', name: string): Promise<number>;
  /**
   * Extension: publishes a message on its message partition (starting at most `maxStarts` instances), then delivers it to
   * every other partition; resolves once all committed it. A duplicate (same messageId, still buffered) is delivered again,
   * so a publish interrupted half-way is completed by its retry, and is reported as such.
   */
  publishMessage(account: string, message: MessageToPublish, maxStarts: number, options?: CommandOptions): Promise<PublishOutcome>;
  /** Extension: broadcasts a signal to every partition (signal-broadcast.ts), starting at most `maxStarts` instances; a client's key makes it idempotent. */
  broadcastSignal(account: string, signal: { name: string; variables: Variables }, maxStarts: number, options?: CommandOptions): Promise<SignalOutcome>;
  /** Partitions this process leads (role all/engine). */
  ownedPartitions(): number[];
  /** Partitions this process leads that have not been able to commit for at least `forMs` (readiness). */
  stalledPartitions(forMs: number): number[];
  /** The gauges a metrics scrape reads now; each part that does not answer within `timeoutMs` is left out. */
  gauges(timeoutMs: number): Promise<EngineGauges>;
  /** Where this process's leaders hand committed webhook events (webhook-taker.ts): its dispatcher, or none (undefined). */
  attachWebhookTaker(taker: WebhookTaker | undefined): void;
  close(): Promise<void>;
}

/** `config` comes validated, defaults filled (engineConfig(), or the service's config.engine). */
export async function createEngine(config: EngineConfig, options: EngineOptions = {}): Promise<Engine> {
  const { partitions, role } = config;
  let database: Database | undefined;
  let queues: Queues | undefined;
  let shard: Shard | undefined;
  let marker: FlushMarker | undefined;
  try {
    database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, schema: config.schema, applicationName: config.dbApplicationName });
    await database.migrate();
    queues = await createQueues({ redisUrl: config.redisUrl, prefix: config.redisPrefix });
    const store = createStore(database.db, database.writer);
    const models = new ModelCache(store);
    if (role !== 'api') {
      // The queues' prefix, so the marker sits beside the keys it vouches for.
      if (config.redisUrl) marker = await createRedisFlushMarker(config.redisUrl, config.redisPrefix);
      shard = new Shard({
        store,
        queues,
        models,
        partitions,
        owner: options.owner ?? `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`,
        leaseMs: config.leaseMs,
        marker,
        commandRetentionMs: options.commandRetentionMs ?? config.commandRetentionMs,
        commitThread: options.commitThread === false ? undefined : database.writerConnection,
        log: options.log,
        metrics: options.metrics,
        tracer: options.tracer,
        charges: options.charges ?? (options.credits?.enabled ? ledgerStartCharges(store.ledger, { lowThreshold: options.credits.lowThreshold }) : FREE_STARTS),
      });
      await shard.start();
    }
    return engineApi({ store, queues, models, shard, marker, database, partitions, config, metrics: options.metrics ?? NO_METRICS, tracer: options.tracer });
  } catch (err) {
    await shard?.stop();
    await marker?.close();
    await queues?.close();
    await database?.close();
    throw err;
  }
}

/** The value, or undefined when it fails or takes longer than `ms`: a scrape must not hang on a store that does not answer. */
function within<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  return withTimeout(work, ms).catch(() => undefined);
}

function engineApi(parts: {
  store: Store;
  queues: Queues;
  models: ModelCache;
  shard?: Shard;
  marker?: FlushMarker;
  database: Database;
  partitions: number;
  config: EngineConfig;
  metrics: EngineMetrics;
  tracer?: Tracer;
}): Engine {
  const { store, queues, models, shard, marker, database, partitions, config, metrics, tracer } = parts;
  const maxPending = config.maxPendingCommands;
  const send = commandClient({ queues, shard, replyTimeoutMs: config.replyTimeoutMs, maxPending, metrics, tracer });
  shard?.useSender(send);

  const activate = jobActivation({ queues, send, metrics, partitionOf: (key) => partitionOf(key, 'Job') });
  const requestIds = freshKeys();

  /** The origin a keyed command carries (with its fingerprint), so its result can be told from another request's. */
  function originOf(options: CommandOptions): CommandOrigin | undefined {
    return options.commandKey === undefined || options.fingerprint === undefined ? undefined : { fingerprint: options.fingerprint, request: requestIds() };
  }

  /**
   * Sends a command with its origin, if any, and says whether the result was
   * another sending's when the caller asks (onReplay). Otherwise it is `send`
   * itself: no frame or promise more on the common path.
   */
  function sendKeyed(partition: number, command: EngineCommand, account: string, options: CommandOptions, limit?: number) {
    const origin = originOf(options);
    if (origin === undefined) return send(partition, command, scoped(account, options.commandKey), limit);
    command.origin = origin;
    const sent = send(partition, command, scoped(account, options.commandKey), limit);
    const { onReplay } = options;
    if (onReplay === undefined) return sent;
    return sent.then((reply) => {
      if (reply.origin?.request !== origin.request) onReplay();
      return reply;
    });
  }

  /** A start's partition: by its key when it has one, so a retry finds its first result. */
  function startPartition(account: string, commandKey: string | undefined): number {
    return commandKey === undefined ? Math.floor(Math.random() * partitions) : hashToPartition(`${account}\u0000${commandKey}`, partitions);
  }

  /** Runs a deploy once per key (request_keys), in the transaction that stores its result; without a key, just runs it. */
  async function deployOnce<T>(account: string, options: CommandOptions, work: (tx?: Tx) => Promise<T>): Promise<T> {
    const { commandKey } = options;
    if (commandKey === undefined) return unavailableAsEngineError(() => work());
    const fingerprint = options.fingerprint ?? '';
    const outcome = await unavailableAsEngineError(() => store.requestKeys.once(account, commandKey, fingerprint, work));
    if (outcome.replayed) {
      if (outcome.fingerprint !== fingerprint) {
        throw new EngineError('KEY_REUSED', `Key '${commandKey}' was used before for a different deploy; its result answers only that request.`);
      }
      options.onReplay?.();
    }
    return outcome.result;
  }

  /** A removal's answer: the versions gone (this pod's compiled models forgotten), or why none were. */
  function removed(outcome: { removed: number; blocked?: string }, notFound: string, account: string): { versions: number } {
    if (outcome.blocked !== undefined) throw new EngineError('INVALID_STATE', outcome.blocked);
    if (outcome.removed === 0) throw new EngineError('NOT_FOUND', notFound);
    models.invalidate(account);
    return { versions: outcome.removed };
  }

  async function deployModel(account: string, xml: string, resourceName: string, options: DeployOptions = {}) {
    const result = compileBpmn(xml);
    if (!result.ok) throw new ModelRejected(result.problems);
    const inlineScripts = options.inlineScripts === true;
    const compiled = { ...result, model: inlineScripts ? withInlineScripts(result.model) : result.model };
    const inputs = compiled.model.processes.map((p) => ({ bpmnProcessId: p.id, resourceName, xml, inlineScripts }));
    const results = await deployOnce(account, options, (tx) => store.definitions.deployProcesses(account, inputs, tx));
    models.invalidate(account);
    // A new version (re)arms its timer start events and withdraws the previous version's,
    // on the partition that owns this process's start timers. A replayed deploy sends the
    // same commands again (their keys answer them once), in case the first sending was cut short.
    for (const r of results) {
      const process = compiled.model.processes.find((p) => p.id === r.bpmnProcessId)!;
      const hasTimerStart = process.startEvents.some((id) => process.elements[id].eventDefinition?.kind === 'timer');
      if (!r.isNew || (!hasTimerStart && r.version === 1)) continue;
      const partition = hashToPartition(`${account}\u0000${r.bpmnProcessId}`, partitions);
      await send(
        partition,
        { kind: 'scheduleStartTimers', account, bpmnProcessId: r.bpmnProcessId, version: r.version },
        `${account}:start-timers:${r.bpmnProcessId}:${r.version}`,
      );
    }
    const deployments = results.map((r) => ({ bpmnProcessId: r.bpmnProcessId, version: r.version, isNew: r.isNew }));
    return { deployments, warnings: compiled.model.warnings };
  }

  function partitionOf(key: string, what: string): number {
    const partition = partitionOfKey(key);
    if (partition === undefined || partition >= partitions) throw new EngineError('NOT_FOUND', `${what} '${key}' not found.`);
    return partition;
  }

  return {
    ...caseClient({ sendKeyed, startPartition, partitionOf, maxPending, store }),
    store,
    queues,
    partitions,

    async deploy(account, xml, resourceName, options = {}) {
      return (await deployModel(account, xml, resourceName, options)).deployments;
    },

    deployModel,

    async deployDecisions(account, xml, resourceName, options = {}) {
      const compiled = compileDmn(xml);
      if (!compiled.ok) throw new ModelRejected(compiled.problems);
      const inputs = compiled.model.decisions.map((d) => ({ decisionId: d.id, decisionName: d.name, resourceName, xml }));
      const results = await deployOnce(account, options, (tx) => store.decisions.deployDecisions(account, inputs, tx));
      models.invalidate(account);
      return results.map((r) => ({ decisionId: r.decisionId, version: r.version, isNew: r.isNew }));
    },

    async deployCases(account, xml, resourceName, options = {}) {
      const compiled = compileCmmn(xml);
      if (!compiled.ok) throw new ModelRejected(compiled.problems);
      const inputs = compiled.model.cases.map((c) => ({ caseDefinitionId: c.id, caseName: c.name ?? null, resourceName, xml }));
      const results = await deployOnce(account, options, (tx) => store.cases.deployCases(account, inputs, tx));
      const deployments = results.map((r) => ({ caseDefinitionId: r.caseDefinitionId, version: r.version, isNew: r.isNew }));
      return { deployments, warnings: compiled.model.warnings };
    },

    async deleteProcess(account, bpmnProcessId) {
      const outcome = await unavailableAsEngineError(() => store.definitions.deleteProcess(account, bpmnProcessId));
      return removed(outcome, `No process '${bpmnProcessId}' is deployed.`, account);
    },

    async deleteDecision(account, decisionId) {
      const outcome = await unavailableAsEngineError(() => store.decisions.deleteDecision(account, decisionId));
      return removed(outcome, `No decision '${decisionId}' is deployed.`, account);
    },

    async startInstance(account, bpmnProcessId, variables = {}, options = {}) {
      // A retried start with the same command key must reach the same partition to find its first result.
      const partition = startPartition(account, options.commandKey);
      // Refused when more than maxPending commands wait: appended only while at most maxPending do.
      const reply = await sendKeyed(partition, { kind: 'start', account, bpmnProcessId, variables }, account, options, maxPending + 1);
      return reply.value as StartedInstance;
    },

    activateJobs:
      tracer === undefined
        ? activate
        : (account, type, max, worker, requestTimeoutMs, timeoutMs) =>
            inSpan(
              tracer,
              'orca.jobs.activate',
              { 'orca.job.type': type, 'orca.jobs.requested': max, 'orca.jobs.long_poll': Boolean(requestTimeoutMs) },
              async (span) => {
                const jobs = await activate(account, type, max, worker, requestTimeoutMs, timeoutMs);
                span.setAttribute('orca.jobs.activated', jobs.length);
                return jobs;
              },
            ),

    async completeJob(account, jobKey, variables, options = {}, result) {
      await sendKeyed(partitionOf(jobKey, 'Job'), { kind: 'completeJob', account, jobKey, variables, result }, account, options);
    },

    async failJob(account, jobKey, retries, errorMessage, options = {}, retryBackOff) {
      const command: EngineCommand = retryBackOff
        ? { kind: 'failJob', account, jobKey, retries, errorMessage, retryBackOff }
        : { kind: 'failJob', account, jobKey, retries, errorMessage };
      await sendKeyed(partitionOf(jobKey, 'Job'), command, account, options);
    },

    async throwJobError(account, jobKey, error, options = {}) {
      await sendKeyed(partitionOf(jobKey, 'Job'), { kind: 'throwJobError', account, jobKey, ...error }, account, options);
    },

    async hasCommandResult(account, commandKey, jobKey) {
      const partition = jobKey === undefined ? startPartition(account, commandKey) : partitionOfKey(jobKey);
      if (partition === undefined || partition >= partitions) return false;
      const key = scoped(account, commandKey)!;
      const found = await unavailableAsEngineError(() =>
        jobKey === undefined ? store.commands.findCommandResults(partition, [key]) : store.commands.findCommandResults(partition, [], [{ key, jobKey }]),
      );
      return found.size > 0;
    },

    async cancelInstance(account, instanceKey) {
      await send(partitionOf(instanceKey, 'Process instance'), { kind: 'cancel', account, instanceKey });
    },

    async activateAdHocElements(account, instanceKey, elementInstanceKey, elements) {
      await send(partitionOf(instanceKey, 'Process instance'), { kind: 'activateAdHoc', account, instanceKey, elementInstanceKey, elements });
    },

    async eventStarts(account, event, name) {
      return (await unavailableAsEngineError(() => (event === 'message' ? messageStartTargets : signalStartTargets)(models, account, name))).length;
    },

    publishMessage(account, message, maxStarts, options = {}) {
      const sendHome = (p: number, command: EngineCommand, limit: number) => sendKeyed(p, command, account, options, limit);
      return publishMessage({ send, sendHome, partitions, maxPending }, account, message, maxStarts);
    },

    broadcastSignal(account, signal, maxStarts, options = {}) {
      const sendHome = (p: number, command: EngineCommand, limit: number) => sendKeyed(p, command, account, options, limit);
      return broadcastSignal({ send, sendHome, partitions, maxPending }, account, signal, maxStarts);
    },

    ownedPartitions: () => shard?.owned() ?? [],
    stalledPartitions: (forMs) => shard?.stalled(forMs) ?? [],
    attachWebhookTaker: (taker) => shard?.attachWebhookTaker(taker),

    async gauges(timeoutMs) {
      if (shard === undefined) return { partitions, leads: false, led: [], incidentsOpen: undefined };
      const owned = shard.owned();
      const [led, incidentsOpen] = await Promise.all([within(shard.pending(), timeoutMs), within(store.incidents.countOpenIncidents(owned), timeoutMs)]);
      return { partitions, leads: true, led: led ?? owned.map((partition) => ({ partition, pending: undefined })), incidentsOpen };
    },

    async close() {
      await shard?.stop();
      await marker?.close();
      await queues.close();
      await database.close();
    },
  };
}
