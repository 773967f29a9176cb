// Traces over real HTTP (issue 15): with the SDK started on an in-memory
// exporter (behind the same batch processor as OTLP), a workload's spans —
// the HTTP request continuing the caller's W3C trace, the command sent to a
// partition, the leader's batch with its apply, commit and publish phases
// and its LINK to the request whose command it carried, the job activation
// with the number handed out. In-process on the embedded default (PGlite,
// in-process queues: the command reaches the leader in memory) or on
// Postgres and Redis; and, scaled out (an API process and an engine shard
// sharing Postgres and Redis), across the command stream.
import { randomBytes } from 'node:crypto';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing, type Tracing } from '../../api/tracing/sdk.ts';
import { apiFixture, type ApiFixture } from '../api/api-fixture.ts';
import { activateOne, eventually, instanceInState, mustDeploy, serviceProcess } from '../api/workflow-support.ts';

const scaledOut = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const exporter = new InMemorySpanExporter();
let tracing: Tracing;

beforeAll(() => {
  tracing = startTracing(
    { url: 'http://127.0.0.1:9/v1/traces', sampler: { name: 'parentbased_always_on' }, serviceName: 'orca-test' },
    { exporter, log: (message) => expect.fail(`no export should fail: ${message}`) },
  );
});
afterAll(() => tracing.shutdown());

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** The spans exported so far, once `found` finds what it looks for among them. */
async function spansWhere<T>(found: (spans: ReadableSpan[]) => T | undefined, what: string): Promise<T> {
  return eventually(async () => {
    await tracing.flush();
    return found(exporter.getFinishedSpans());
  }, what);
}

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

/** Runs one instance through start, activation and completion, each request sent with a traceparent of our own; what the spans say. */
async function workload(api: ApiFixture) {
  const { apiKey } = await api.newAccount();
  const type = `traced-${hex(4)}`;
  await mustDeploy(api, apiKey, serviceProcess('traced', type));
  // The caller's own trace: the request span must continue it.
  const callerTrace = hex(16);
  const callerSpan = hex(8);
  const started = await api.call('POST', '/api/v1/process-instances', {
    apiKey,
    json: { bpmnProcessId: 'traced', variables: {} },
    headers: { traceparent: `00-${callerTrace}-${callerSpan}-01` },
  });
  expect(started.status).toBe(201);
  const job = await activateOne(api, apiKey, type);
  const completed = await api.call('POST', `/api/v1/jobs/${job.key}/complete`, { apiKey, json: { variables: {} } });
  expect(completed.status).toBe(204);
  await instanceInState(api, apiKey, started.json.processInstanceKey, 'COMPLETED');
  return { callerTrace, callerSpan, jobKey: String(job.key) };
}

function expectTraced(spans: ReadableSpan[], callerTrace: string, callerSpan: string) {
  // The request, continuing the caller's trace, named by its route pattern.
  const request = spans.find((s) => s.kind === SpanKind.SERVER && s.spanContext().traceId === callerTrace)!;
  expect(request).toBeDefined();
  expect(request.name).toBe('POST /api/v1/process-instances');
  expect(parentOf(request)).toBe(callerSpan);
  expect(request.attributes['http.route']).toBe('/api/v1/process-instances');
  expect(request.attributes['http.response.status_code']).toBe(201);

  // The command it sent, a child of the request.
  const command = spans.find((s) => s.name === 'orca.command start' && s.spanContext().traceId === callerTrace)!;
  expect(command).toBeDefined();
  expect(parentOf(command)).toBe(request.spanContext().spanId);
  expect(command.attributes['orca.command.kind']).toBe('start');
  expect(typeof command.attributes['orca.partition']).toBe('number');

  // The leader's batch that carried it, linked to the request, with its phases as children.
  const batch = spans.find((s) => s.name === 'orca.batch' && s.links.some((l) => l.context.spanId === request.spanContext().spanId))!;
  expect(batch).toBeDefined();
  const link = batch.links.find((l) => l.context.spanId === request.spanContext().spanId)!;
  expect(link.context.traceId).toBe(callerTrace);
  expect(batch.attributes['orca.partition']).toBe(command.attributes['orca.partition']);
  expect(batch.attributes['orca.batch.commands']).toBeGreaterThanOrEqual(1);
  const phases = spans.filter((s) => parentOf(s) === batch.spanContext().spanId).map((s) => s.name);
  expect(phases).toEqual(expect.arrayContaining(['orca.batch.apply', 'orca.batch.commit', 'orca.batch.publish']));
  return { request, command, batch };
}

describe(`traces of a workload (${process.env.DATABASE_URL ? 'Postgres' : 'PGlite'}, ${process.env.REDIS_URL ? 'Redis' : 'in-process queues'})`, () => {
  let api: ApiFixture;
  beforeAll(async () => {
    api = await apiFixture({ tracer: tracing.tracer, config: { metrics: { enabled: false } } });
  });
  afterAll(() => api?.close());

  it('traces the request, its command to the partition, and the batch that carried it, linked to the request', async () => {
    const { callerTrace, callerSpan } = await workload(api);
    const spans = await spansWhere((all) => (all.some((s) => s.name === 'orca.batch') ? all : undefined), 'a batch span');
    expectTraced(spans, callerTrace, callerSpan);
  });

  it('traces the job activation with the number of jobs handed out, inside the activation request', async () => {
    const activation = await spansWhere(
      (all) => all.find((s) => s.name === 'orca.jobs.activate' && s.attributes['orca.jobs.activated'] === 1),
      'an activation span',
    );
    expect(activation.attributes['orca.jobs.requested']).toBe(1);
    const spans = exporter.getFinishedSpans();
    const request = spans.find((s) => s.spanContext().spanId === parentOf(activation))!;
    expect(request.name).toBe('POST /api/v1/jobs/activate');
    expect(request.kind).toBe(SpanKind.SERVER);
  });

  it('traces the completion: its command and a batch linked to its request', async () => {
    const spans = exporter.getFinishedSpans();
    const request = spans.find((s) => s.name === 'POST /api/v1/jobs/:jobKey/complete')!;
    expect(request.attributes['http.response.status_code']).toBe(204);
    const command = spans.find((s) => s.name === 'orca.command completeJob')!;
    expect(parentOf(command)).toBe(request.spanContext().spanId);
    expect(spans.some((s) => s.name === 'orca.batch' && s.links.some((l) => l.context.spanId === request.spanContext().spanId))).toBe(true);
  });

  it('names a request no route matched by its method only, never by its URL', async () => {
    const res = await api.call('GET', `/no/such/${hex(4)}`);
    expect(res.status).toBe(404);
    const span = await spansWhere((all) => all.find((s) => s.kind === SpanKind.SERVER && s.attributes['http.response.status_code'] === 404), 'the 404 span');
    expect(span.name).toBe('GET');
    expect(span.attributes['http.route']).toBe('unmatched');
  });

  it('does not trace probes and scrapes', async () => {
    for (const path of ['/healthz', '/readyz']) expect((await api.call('GET', path)).status).toBe(200);
    // A request after them: once its span is out, theirs would be too.
    const marker = `/no/such/${hex(4)}`;
    await api.call('GET', marker);
    const spans = await spansWhere((all) => (all.some((s) => s.attributes['url.path'] === marker) ? all : undefined), 'the marker request');
    expect(spans.filter((s) => s.kind === SpanKind.SERVER && ['/healthz', '/readyz'].includes(String(s.attributes['http.route'])))).toEqual([]);
  });
});

describe.skipIf(!scaledOut)(`across the command stream, scaled out${scaledOut ? '' : ' (skipped: needs DATABASE_URL and REDIS_URL)'}`, () => {
  let api: ApiFixture;
  beforeAll(async () => {
    exporter.reset();
    api = await apiFixture({ split: true, tracer: tracing.tracer, config: { metrics: { enabled: false } } });
  });
  afterAll(() => api?.close());

  it('links the shard’s batch to the API’s request through the trace context inside the command', async () => {
    expect(api.engine.ownedPartitions()).toEqual([]);
    const { callerTrace, callerSpan } = await workload(api);
    const spans = await spansWhere((all) => (all.some((s) => s.name === 'orca.batch') ? all : undefined), 'a batch span');
    expectTraced(spans, callerTrace, callerSpan);
  });
});
