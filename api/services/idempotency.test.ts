import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../problem.ts';
import { canonicalJson, idempotencyKeyOf, idempotencyOf } from './idempotency.ts';

const requestWith = (headers: Record<string, string | string[]>) => ({ headers }) as unknown as FastifyRequest;

describe('canonicalJson', () => {
  it('sorts object keys at every depth, keeps array order, and drops undefined properties as JSON does', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null }, u: undefined })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson([undefined, 'x'])).toBe('[null,"x"]');
    expect(canonicalJson(undefined)).toBe('null');
  });
});

describe('idempotencyOf', () => {
  const input = { params: { jobKey: '1' }, query: {}, body: { variables: { a: 1, b: 2 } } };
  const fingerprint = idempotencyOf('k', 'POST', '/api/v1/jobs/:jobKey/complete', input).fingerprint();

  it('fingerprints the same request the same, whatever the order of its properties', () => {
    const reordered = { params: { jobKey: '1' }, query: {}, body: { variables: { b: 2, a: 1 } } };
    expect(idempotencyOf('k', 'POST', '/api/v1/jobs/:jobKey/complete', reordered).fingerprint()).toBe(fingerprint);
  });

  it('tells apart another route, another target and another body', () => {
    expect(idempotencyOf('k', 'POST', '/api/v1/jobs/:jobKey/fail', input).fingerprint()).not.toBe(fingerprint);
    expect(idempotencyOf('k', 'POST', '/api/v1/jobs/:jobKey/complete', { ...input, params: { jobKey: '2' } }).fingerprint()).not.toBe(fingerprint);
    expect(idempotencyOf('k', 'POST', '/api/v1/jobs/:jobKey/complete', { ...input, body: { variables: { a: 1 } } }).fingerprint()).not.toBe(fingerprint);
  });

  it('fingerprints given content in place of the query and body', () => {
    const upload = idempotencyOf('k', 'POST', '/api/v1/models', { params: {}, query: { resourceName: 'a.dmn' }, body: undefined });
    const multipart = idempotencyOf('k', 'POST', '/api/v1/models', { params: {}, query: {}, body: undefined });
    expect(upload.fingerprint({ xml: '<x/>', resourceName: 'a.dmn' })).toBe(multipart.fingerprint({ xml: '<x/>', resourceName: 'a.dmn' }));
  });
});

describe('idempotencyKeyOf', () => {
  it('is undefined without the header and the value with it', () => {
    expect(idempotencyKeyOf(requestWith({}))).toBeUndefined();
    expect(idempotencyKeyOf(requestWith({ 'idempotency-key': '"8e03978e-40d5"' }))).toBe('"8e03978e-40d5"');
  });

  it.each([
    ['', /must not be empty/],
    ['x'.repeat(256), /at most 255 characters, not 256/],
    ['new\nline', /printable ASCII/],
    ['caf\u00e9', /printable ASCII/],
  ])('refuses %j with a 400 naming the header', (key, why) => {
    let thrown: unknown;
    try {
      idempotencyKeyOf(requestWith({ 'idempotency-key': key }));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect(thrown).toMatchObject({
      status: 400,
      code: 'INVALID_INPUT',
      extra: { errors: [{ field: 'headers.Idempotency-Key', message: expect.stringMatching(why) }] },
    });
  });
});
