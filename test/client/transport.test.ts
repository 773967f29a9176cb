// The client's repeat rules, case by case, with the network replaced by a
// script of answers (the real-server tests in this folder cover the wire):
// which requests are repeated after 503, 429 and no answer, how long the
// client waits (Retry-After in seconds or as a date, the backoff's
// ceiling), when it stops, and the one renewal after a 401 on a token.
import { describe, expect, it } from 'vitest';
import type { Credentials } from '../../client/auth.ts';
import { OrcaError, retryAfterMs } from '../../client/errors.ts';
import type { HttpRequest, HttpResponse } from '../../client/http.ts';
import { backoffMs, delayBeforeRetry, retryPolicy } from '../../client/retry.ts';
import { createTransport } from '../../client/transport.ts';

type Step = number | { status: number; retryAfter?: string } | 'no answer';

function scripted(steps: Step[]) {
  const sent: HttpRequest[] = [];
  const send = async (request: HttpRequest): Promise<HttpResponse> => {
    sent.push(request);
    const step = steps.shift() ?? 200;
    if (step === 'no answer') throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const { status, retryAfter } = typeof step === 'number' ? { status: step, retryAfter: undefined } : step;
    return { status, statusText: '', header: (name) => (name === 'retry-after' ? retryAfter : undefined), text: '' };
  };
  return { sent, send };
}

const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);

function transport(steps: Step[], credentials: Credentials = { mode: 'apiKey', apply: async (h) => void (h['x-api-key'] = 'k'), invalidate: () => false }) {
  const { sent, send } = scripted(steps);
  const waits: number[] = [];
  const run = createTransport({
    send,
    credentials,
    retry: retryPolicy({ attempts: 3, baseMs: 100, maxMs: 400 }),
    clock: () => NOW,
    sleep: async (ms) => void waits.push(ms),
    random: () => 1,
  });
  return { run, sent, waits };
}

const keyed = (method = 'POST'): HttpRequest => ({ method, url: 'http://orca/api/v1/process-instances', headers: { 'idempotency-key': 'k-1' }, body: '{}' });
const unkeyed: HttpRequest = { method: 'POST', url: 'http://orca/api/v1/jobs/activate', headers: {}, body: '{}' };
const get: HttpRequest = { method: 'GET', url: 'http://orca/api/v1/incidents', headers: {} };

describe('repeats', () => {
  it('repeats a keyed request after 503 and no answer, with the same key and body, waiting the backoff', async () => {
    const { run, sent, waits } = transport([503, 'no answer', 201]);
    expect((await run(keyed())).status).toBe(201);
    expect(sent.map((r) => [r.headers['idempotency-key'], r.body])).toEqual([
      ['k-1', '{}'],
      ['k-1', '{}'],
      ['k-1', '{}'],
    ]);
    expect(waits).toEqual([100, 200]);
  });

  it('repeats a GET, never a request without a key', async () => {
    expect((await transport([503, 200]).run(get)).status).toBe(200);
    const once = transport([503, 200]);
    expect((await once.run(unkeyed)).status).toBe(503);
    expect(once.sent).toHaveLength(1);
    const lost = transport(['no answer', 200]);
    const error = await lost.run(unkeyed).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrcaError);
    expect(error).toMatchObject({ status: 0, code: 'TRANSPORT', retryable: true });
    expect(lost.sent).toHaveLength(1);
  });

  it('stops after `attempts` tries, answering the last answer (or throwing the last failure)', async () => {
    const busy = transport([503, 503, 503, 200]);
    expect((await busy.run(keyed())).status).toBe(503);
    expect(busy.sent).toHaveLength(3);
    const gone = transport(['no answer', 'no answer', 'no answer']);
    await expect(gone.run(get)).rejects.toMatchObject({ code: 'TRANSPORT' });
    expect(gone.sent).toHaveLength(3);
  });

  it('waits Retry-After when longer than the backoff, in seconds or as a date, and gives up on one over a minute', async () => {
    const seconds = transport([{ status: 429, retryAfter: '2' }, 200]);
    await seconds.run(get);
    expect(seconds.waits).toEqual([2000]);
    const date = transport([{ status: 503, retryAfter: new Date(NOW + 3_000).toUTCString() }, 200]);
    await date.run(get);
    expect(date.waits).toEqual([3000]);
    const tooLong = transport([{ status: 429, retryAfter: '120' }, 200]);
    expect((await tooLong.run(get)).status).toBe(429);
    expect(tooLong.sent).toHaveLength(1);
  });

  it('does not repeat other failures (400, 404, 409, 500)', async () => {
    for (const status of [400, 404, 409, 500]) {
      const t = transport([status, 200]);
      expect((await t.run(keyed())).status).toBe(status);
      expect(t.sent).toHaveLength(1);
    }
  });

  it('after a 401 on a token, renews once and repeats even an unkeyed request; a second 401 is answered', async () => {
    let token = 1;
    const credentials: Credentials = {
      mode: 'token',
      apply: async (h) => void (h.authorization = `Bearer t${token}`),
      invalidate: () => {
        token++;
        return true;
      },
    };
    const renewed = transport([401, 200], credentials);
    expect((await renewed.run(unkeyed)).status).toBe(200);
    expect(renewed.sent.map((r) => r.headers.authorization)).toEqual(['Bearer t1', 'Bearer t2']);
    const refused = transport([401, 401, 200], credentials);
    expect((await refused.run(unkeyed)).status).toBe(401);
    expect(refused.sent).toHaveLength(2);
  });
});

describe('delays', () => {
  it('grows the backoff ceiling exponentially up to maxMs, with full jitter below it', () => {
    const policy = retryPolicy({ baseMs: 100, maxMs: 1_000 });
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffMs(policy, n, () => 1))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(backoffMs(policy, 3, () => 0)).toBe(0);
    expect(backoffMs(policy, 3, () => 0.5)).toBe(200);
    expect(delayBeforeRetry(policy, 1, 5_000, () => 1)).toBe(5_000);
    expect(delayBeforeRetry(policy, 4, 100, () => 1)).toBe(800);
  });

  it('reads Retry-After as seconds or an HTTP date, and ignores anything else', () => {
    expect(retryAfterMs('7', NOW)).toBe(7_000);
    expect(retryAfterMs(new Date(NOW + 1_500).toUTCString(), NOW)).toBe(1_000); // HTTP dates have whole seconds.
    expect(retryAfterMs(new Date(NOW - 60_000).toUTCString(), NOW)).toBe(0);
    expect(retryAfterMs('soon', NOW)).toBeUndefined();
    expect(retryAfterMs(null, NOW)).toBeUndefined();
  });
});
