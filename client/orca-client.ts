// OrcaClient: one typed method per thing a program does with an Orca server
// (deploy, start, read instances and incidents, work on jobs and tasks), its
// shapes the types generated from the served OpenAPI document
// (generated/openapi.ts; paths are checked against it too). Every call that
// changes something carries an Idempotency-Key,
// one per logical call (a UUID unless the caller gives one) and the same on
// every repeat, which is what makes the transport's retries safe. Failures
// are thrown as OrcaError. close() ends the client's keep-alive connections.
import { apiKeyCredentials, tokenCredentials, type Credentials } from './auth.ts';
import { clientClosed, OrcaError, parseJson } from './errors.ts';
import type { paths } from './generated/openapi.ts';
import { fetchSender, fillPath, poolSender, type HttpRequest, type HttpResponse, type PooledSender } from './http.ts';
import type { CallOptions, ListInstancesQuery, ModelFile, OrcaClientOptions } from './client-options.ts';
import { retryPolicy } from './retry.ts';
import { createTransport, sleep, type Transport } from './transport.ts';
import { matchesAll, parseVariableFilter } from './variable-filter.ts';
import type {
  Account,
  ActivateJobsRequest,
  ActivatedJob,
  AdHocActivation,
  AdHocJobResult,
  CompleteJobRequest,
  CompleteTaskRequest,
  CreditGrant,
  CreditGrantRequest,
  Decision,
  DecisionDeployment,
  DecisionResult,
  DefinitionStatistics,
  Deployment,
  FailJobRequest,
  ThrowJobErrorRequest,
  PublishMessageRequest,
  PublishedMessage,
  BroadcastSignalRequest,
  BroadcastSignalResult,
  Incident,
  IncidentPage,
  IncidentQuery,
  InstanceDetail,
  InstanceHistoryPage,
  InstancePage,
  InstanceStatistics,
  ProcessDefinition,
  ProcessDefinitionPage,
  ProcessDeployment,
  Query,
  StartedInstance,
  StartInstanceRequest,
  Task,
  TaskPage,
  TaskQuery,
  Variables,
} from './types.ts';

export type { CallOptions, ListInstancesQuery, ModelFile, OrcaClientOptions } from './client-options.ts';

type Path = keyof paths;

interface Call {
  /** Values of the path's `{name}` segments. */
  path?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  xml?: string | Uint8Array;
  /** Sent as Idempotency-Key: what makes the call safe to repeat. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** Sent as Authorization: Bearer instead of the client's credentials (the operator's routes). */
  bearer?: string;
}

export class OrcaClient {
  readonly url: string;
  readonly credentials: Credentials;
  readonly #transport: Transport;
  readonly #clock: () => number;
  /** The client's own connections (none when it sends through a `fetch` it was given). */
  readonly #pool?: PooledSender;
  #closed?: Promise<void>;
  /** Calls begun and not yet settled, and what close() waits on until there are none. */
  #calls = 0;
  #settled?: () => void;

  constructor(options: OrcaClientOptions) {
    if (!options?.url) throw new TypeError('OrcaClient: `url` is required');
    const base = new URL(options.url); // Throws on a malformed URL, here rather than at the first call.
    this.url = base.href.replace(/\/+$/, '');
    if (options.timeoutMs !== undefined && !(Number.isFinite(options.timeoutMs) && options.timeoutMs > 0)) {
      throw new TypeError('OrcaClient: `timeoutMs` must be a positive number');
    }
    this.#pool = options.fetch ? undefined : poolSender({ timeoutMs: options.timeoutMs });
    const send = this.#pool ?? fetchSender(options.fetch!, { timeoutMs: options.timeoutMs });
    this.#clock = options.clock ?? Date.now;
    if (options.token === 'exchange') {
      if (options.apiKey === undefined) throw new TypeError("OrcaClient: token: 'exchange' needs an apiKey");
      this.credentials = tokenCredentials({ baseUrl: this.url, apiKey: options.apiKey, send, clock: this.#clock });
    } else {
      this.credentials = apiKeyCredentials(options.apiKey);
    }
    this.#transport = createTransport({
      send,
      credentials: this.credentials,
      retry: retryPolicy(options.retry),
      clock: this.#clock,
      sleep: options.sleep ?? sleep,
      onRetry: options.onRetry,
    });
  }

  /**
   * Ends the client's keep-alive connections once the requests in flight
   * are answered; calls made afterwards fail with CLIENT_CLOSED, unsent.
   * Call it when done with the client (a worker that made its own client
   * closes it in stop()): otherwise its idle connections stay open until
   * they time out. A client given `fetch` owns no connections to close.
   */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      // Calls already begun may not have reached the pool yet (credentials, a retry's back-off).
      while (this.#calls > 0) await new Promise<void>((resolve) => (this.#settled = resolve));
      await this.#pool?.close();
    })();
    return this.#closed;
  }

  /**
   * One request: the answer's JSON (undefined for an empty answer), or an
   * OrcaError. A promise chain rather than an async function: every job a
   * worker completes goes through here, and this saves it a frame.
   */
  #call<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', template: Path, call: Call = {}): Promise<T> {
    let request: HttpRequest;
    try {
      request = this.#request(method, template, call);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    this.#calls++;
    return this.#transport(request, true).then(this.#answered, this.#failed) as Promise<T>;
  }

  #request(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', template: Path, call: Call): HttpRequest {
    let url = this.url + fillPath(template, call.path);
    if (this.#closed !== undefined) throw clientClosed(method, url);
    if (call.query !== undefined) {
      const query = Object.entries(call.query).filter((entry): entry is [string, string | number | boolean] => entry[1] !== undefined);
      if (query.length > 0) url += `?${new URLSearchParams(query.map(([name, value]) => [name, String(value)]))}`;
    }
    // No Accept: every answer is JSON or problem+json whatever it says, and a worker sends a header fewer per job.
    const request: HttpRequest = { method, url, headers: {}, signal: call.signal };
    if (call.json !== undefined) {
      request.headers['content-type'] = 'application/json';
      request.body = JSON.stringify(call.json);
    } else if (call.xml !== undefined) {
      request.headers['content-type'] = 'application/xml';
      request.body = call.xml;
    }
    if (call.idempotencyKey !== undefined) request.headers['idempotency-key'] = call.idempotencyKey;
    if (call.bearer !== undefined) request.headers.authorization = `Bearer ${call.bearer}`;
    return request;
  }

  readonly #answered = (response: HttpResponse): unknown => {
    this.#settle();
    if (response.status < 200 || response.status > 299) throw OrcaError.fromResponse(response, this.#clock());
    return parseJson(response.text);
  };

  readonly #failed = (error: unknown): never => {
    this.#settle();
    throw error;
  };

  #settle(): void {
    if (--this.#calls === 0) this.#settled?.();
  }

  // ---- models

  /** Deploys BPMN (`.bpmn`, to process-definitions) and DMN (`.dmn`, to models) files, one request each, in order. */
  deploy(file: ModelFile, options?: CallOptions): Promise<Deployment>;
  deploy(files: ModelFile[], options?: CallOptions): Promise<Deployment[]>;
  async deploy(files: ModelFile | ModelFile[], options: CallOptions = {}): Promise<Deployment | Deployment[]> {
    const list = Array.isArray(files) ? files : [files];
    const out: Deployment[] = [];
    for (const [index, file] of list.entries()) {
      // One logical call per file; a caller's key is made distinct per file.
      const key = options.idempotencyKey === undefined || list.length === 1 ? options.idempotencyKey : `${options.idempotencyKey}:${index}`;
      out.push(await this.#deployOne(file, { ...options, idempotencyKey: key }));
    }
    return Array.isArray(files) ? out : out[0];
  }

  async #deployOne(file: ModelFile, options: CallOptions): Promise<Deployment> {
    // Sent only when asked, so a deploy without it is SPEC.md's request exactly.
    const query = file.inlineScripts ? { resourceName: baseName(file.name), inlineScripts: 'true' } : { resourceName: baseName(file.name) };
    const call: Call = { query, xml: file.content, idempotencyKey: keyOf(options), signal: options.signal };
    if (modelKind(file.name) === 'process') return { kind: 'process', ...(await this.#call<ProcessDeployment>('POST', '/api/v1/process-definitions', call)) };
    return { kind: 'decision', ...(await this.#call<DecisionDeployment>('POST', '/api/v1/models', call)) };
  }

  listProcessDefinitions(query: { limit?: number; cursor?: string } = {}): Promise<ProcessDefinitionPage> {
    return this.#call('GET', '/api/v1/process-definitions', { query });
  }

  /** One process: its latest version and every deployment with its checksum. */
  getProcessDefinition(bpmnProcessId: string): Promise<ProcessDefinition> {
    return this.#call('GET', '/api/v1/process-definitions/{bpmnProcessId}', { path: { bpmnProcessId } });
  }

  /** Extension: deletes every version of a process (409 while it has live instances). */
  async deleteProcessDefinition(bpmnProcessId: string): Promise<void> {
    await this.#call('DELETE', '/api/v1/process-definitions/{bpmnProcessId}', { path: { bpmnProcessId } });
  }

  /** One decision's latest version. */
  getDecision(decisionId: string): Promise<Decision> {
    return this.#call('GET', '/api/v1/decisions/{decisionId}', { path: { decisionId } });
  }

  /** Extension: deletes every version of a decision. */
  async deleteDecision(decisionId: string): Promise<void> {
    await this.#call('DELETE', '/api/v1/decisions/{decisionId}', { path: { decisionId } });
  }

  // ---- instances

  startInstance(request: StartInstanceRequest, options: CallOptions = {}): Promise<StartedInstance> {
    return this.#call('POST', '/api/v1/process-instances', { json: request, idempotencyKey: keyOf(options), signal: options.signal });
  }

  async listInstances(query: ListInstancesQuery = {}): Promise<InstancePage> {
    const filters = (query.variables ?? []).map(parseVariableFilter);
    const page = await this.#call<InstancePage>('GET', '/api/v1/process-instances', {
      query: {
        'filter.state': query.state,
        'filter.variable': query.variables?.[0],
        'filter.bpmnProcessId': query.bpmnProcessId,
        'filter.version': query.version,
        'filter.startedAfter': query.startedAfter,
        'filter.startedBefore': query.startedBefore,
        'filter.endedAfter': query.endedAfter,
        'filter.endedBefore': query.endedBefore,
        'filter.parentProcessInstanceKey': query.parentProcessInstanceKey,
        limit: query.limit,
        cursor: query.cursor,
      } satisfies Query<'getProcessInstances'>,
    });
    return filters.length <= 1 ? page : { ...page, items: page.items.filter((item) => matchesAll(item.variables, filters.slice(1))) };
  }

  getInstance(key: string): Promise<InstanceDetail> {
    return this.#call('GET', '/api/v1/process-instances/{key}', { path: { key } });
  }

  /** Extension: per-element counts of one instance and how often each sequence flow was taken. */
  getInstanceStatistics(key: string): Promise<InstanceStatistics> {
    return this.#call('GET', '/api/v1/process-instances/{key}/statistics', { path: { key } });
  }

  /** Extension: the instance's element instances in the order they started. */
  getInstanceHistory(key: string, query: { limit?: number; cursor?: string } = {}): Promise<InstanceHistoryPage> {
    return this.#call('GET', '/api/v1/process-instances/{key}/history', { path: { key }, query });
  }

  /** Extension: per-element counts across all instances of a process version (the latest by default). */
  getDefinitionStatistics(bpmnProcessId: string, version?: number): Promise<DefinitionStatistics> {
    return this.#call('GET', '/api/v1/process-definitions/{bpmnProcessId}/statistics', { path: { bpmnProcessId }, query: { version } });
  }

  /** Extension: cancels an ACTIVE instance. */
  async cancelInstance(key: string): Promise<void> {
    await this.#call('POST', '/api/v1/process-instances/{key}/cancel', { path: { key } });
  }

  /** Extension: starts a path at each of `elements` in the running ad-hoc subprocess `adHocSubProcessInstanceKey` of instance `key`. */
  async activateAdHocElements(key: string, adHocSubProcessInstanceKey: string, elements: AdHocActivation[]): Promise<void> {
    await this.#call('POST', '/api/v1/process-instances/{key}/ad-hoc-activities', { path: { key }, json: { adHocSubProcessInstanceKey, elements } });
  }

  // ---- incidents

  listIncidents(query: IncidentQuery = {}): Promise<IncidentPage> {
    return this.#call('GET', '/api/v1/incidents', {
      query: {
        'filter.state': query.state,
        'filter.processInstanceKey': query.processInstanceKey,
        'filter.bpmnProcessId': query.bpmnProcessId,
        limit: query.limit,
        cursor: query.cursor,
      } satisfies Query<'getIncidents'>,
    });
  }

  getIncident(id: string): Promise<Incident> {
    return this.#call('GET', '/api/v1/incidents/{id}', { path: { id } });
  }

  /** Closes the incident record (the instance stays INCIDENT: SPEC.md). Idempotent on the server. */
  resolveIncident(id: string): Promise<Incident> {
    return this.#call('PATCH', '/api/v1/incidents/{id}', { path: { id } });
  }

  // ---- jobs

  /**
   * Activates up to `maxJobsToActivate` jobs. Never repeated by the client:
   * jobs activated by a request whose answer was lost stay with this worker
   * name (SPEC.md: no lock period).
   */
  async activateJobs(request: ActivateJobsRequest, options: { signal?: AbortSignal } = {}): Promise<ActivatedJob[]> {
    const answer = await this.#call<{ jobs: ActivatedJob[] }>('POST', '/api/v1/jobs/activate', { json: request, signal: options.signal });
    return answer.jobs;
  }

  /** `options.result` (extension): the job result of an ad-hoc subprocess's job (the elements to activate, whether it is done). */
  completeJob(jobKey: string, variables?: Variables, options: CallOptions & { result?: AdHocJobResult } = {}): Promise<void> {
    const json: CompleteJobRequest = variables === undefined ? {} : { variables };
    if (options.result !== undefined) json.result = options.result;
    // The answer is empty (204): #call's own promise, without another async frame on a worker's most frequent call.
    return this.#call<void>('POST', '/api/v1/jobs/{jobKey}/complete', { path: { jobKey }, json, idempotencyKey: keyOf(options), signal: options.signal });
  }

  async failJob(jobKey: string, failure: FailJobRequest, options: CallOptions = {}): Promise<void> {
    await this.#call('POST', '/api/v1/jobs/{jobKey}/fail', { path: { jobKey }, json: failure, idempotencyKey: keyOf(options), signal: options.signal });
  }

  /**
   * Extension: throws a BPMN error for the job instead of completing it; the
   * nearest error boundary event or error event subprocess with the code
   * (or a catch-all) takes over, else the instance gets an incident.
   */
  async throwJobError(jobKey: string, error: ThrowJobErrorRequest, options: CallOptions = {}): Promise<void> {
    await this.#call('POST', '/api/v1/jobs/{jobKey}/error', { path: { jobKey }, json: error, idempotencyKey: keyOf(options), signal: options.signal });
  }

  // ---- messages

  /**
   * Extension: publishes a message with Zeebe's semantics (docs/messages.md):
   * it correlates to the waits whose name and correlation key match, starts
   * instances by message start events (1 credit each), and with a
   * timeToLive stays buffered for waits opened later. A messageId makes a
   * second publish while the first is buffered a 409 (OrcaApiError CONFLICT).
   */
  publishMessage(message: PublishMessageRequest, options: CallOptions = {}): Promise<PublishedMessage> {
    return this.#call('POST', '/api/v1/messages', { json: message, idempotencyKey: keyOf(options), signal: options.signal });
  }

  /** Extension (docs/signals.md): broadcasts a signal to every waiting signal event of the account; signal start events start instances (1 credit each). */
  broadcastSignal(name: string, variables?: Variables, options: CallOptions = {}): Promise<BroadcastSignalResult> {
    const json: BroadcastSignalRequest = variables === undefined ? { name } : { name, variables };
    return this.#call('POST', '/api/v1/signals', { json, idempotencyKey: keyOf(options), signal: options.signal });
  }

  // ---- human tasks

  listTasks(query: TaskQuery = {}): Promise<TaskPage> {
    return this.#call('GET', '/api/v1/tasks', { query });
  }

  getTask(id: string): Promise<Task> {
    return this.#call('GET', '/api/v1/tasks/{id}', { path: { id } });
  }

  /** Completes a human task (costs 1 credit). */
  async completeTask(id: string, variables?: Variables, options: CallOptions = {}): Promise<void> {
    const json: CompleteTaskRequest = variables === undefined ? {} : { variables };
    await this.#call('POST', '/api/v1/tasks/{id}/complete', { path: { id }, json, idempotencyKey: keyOf(options), signal: options.signal });
  }

  // ---- decisions and account

  evaluateDecision(decisionId: string, variables: Variables = {}): Promise<DecisionResult> {
    return this.#call('POST', '/api/v1/decisions/{decisionId}/evaluate', { path: { decisionId }, json: { variables } });
  }

  getAccount(): Promise<Account> {
    return this.#call('GET', '/api/v1/account');
  }

  // ---- operator

  /**
   * Extension: adds credits to the account of an address, with the server's
   * operator token (ORCA_ADMIN_TOKEN), not the client's credentials. Never
   * repeated by the client: a repeat would grant twice.
   */
  grantCredits(grant: CreditGrantRequest, options: { adminToken: string }): Promise<CreditGrant> {
    return this.#call('POST', '/api/admin/credits', { json: grant, bearer: options.adminToken });
  }
}

/** One key per logical call: the caller's, or a fresh UUID that every repeat of this call reuses. */
function keyOf(options: CallOptions): string {
  return options.idempotencyKey ?? crypto.randomUUID();
}

function baseName(name: string): string {
  return name.split(/[\\/]/).pop() || name;
}

function modelKind(name: string): 'process' | 'decision' {
  if (/\.bpmn(\.xml)?$/i.test(name)) return 'process';
  if (/\.dmn(\.xml)?$/i.test(name)) return 'decision';
  throw new TypeError(`deploy: '${name}' is neither .bpmn nor .dmn`);
}
