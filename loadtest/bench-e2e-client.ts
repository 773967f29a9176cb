// The HTTP client of bench:e2e's load (bench-e2e-load.ts): one per run,
// with separate connection pools for starters and workers, and every
// failure counted by kind instead of thrown.
import { randomUUID } from 'node:crypto';
import { Pool, errors as undiciErrors } from 'undici';
import type { LoadSettings } from './bench-e2e-load.ts';

/** A request not answered in this time is an error (a timeout), and the run goes on. */
export const REQUEST_TIMEOUT_MS = 10_000;
/** How many verification lookups run at once. */
export const VERIFY_CONCURRENCY = 16;

export interface Response {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/**
 * One client for the whole run. Every request goes through `call`, which
 * turns a non-2xx answer or a transport failure into a counted error (and
 * `undefined`), so no failure escapes as an exception into a loop.
 * Starters and workers have separate connection pools, each large enough
 * that no request waits for a connection in this process: with one shared
 * pool, an open model's backlog of starts would queue the workers'
 * completions behind it, and the figures would measure the client.
 */
export class Client {
  readonly errorsByKind = new Map<string, number>();
  errors = 0;
  private readonly starters: Pool;
  private readonly workers: Pool;
  private readonly keyedCompletions: boolean;

  constructor(
    baseUrl: string,
    private readonly apiKey: string,
    settings: LoadSettings,
  ) {
    const options = { pipelining: 1, keepAliveTimeout: 30_000 };
    // Open model: one per start in flight (more are dropped); closed: one per lane.
    this.starters = new Pool(baseUrl, { ...options, connections: Math.max(settings.maxInFlight, settings.concurrency) });
    // Each worker's activation plus its completions, all at once.
    this.workers = new Pool(baseUrl, { ...options, connections: settings.workers * (settings.maxJobs + 1) + VERIFY_CONCURRENCY });
    this.keyedCompletions = settings.loopKeys === true;
  }

  async call(
    operation: 'deploy' | 'start' | 'activate' | 'complete' | 'verify',
    method: 'GET' | 'POST',
    path: string,
    options: { json?: unknown; xml?: string; timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<Response | undefined> {
    const headers: Record<string, string> = { 'x-api-key': this.apiKey };
    if (operation === 'complete' && this.keyedCompletions) headers['idempotency-key'] = randomUUID();
    let body: string | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.xml !== undefined) {
      headers['content-type'] = 'application/xml';
      body = options.xml;
    }
    const timeout = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
    try {
      const pool = operation === 'start' || operation === 'deploy' ? this.starters : this.workers;
      const response = await pool.request({ method, path, headers, body, headersTimeout: timeout, bodyTimeout: timeout, signal: options.signal });
      const text = await response.body.text();
      if (response.statusCode < 200 || response.statusCode > 299) {
        this.count(`${operation} ${response.statusCode}`);
        return undefined;
      }
      return { status: response.statusCode, body: text === '' ? undefined : JSON.parse(text) };
    } catch (err) {
      // A stop of the run aborts the workers' long polls: that is no error.
      if (options.signal?.aborted) return undefined;
      const timedOut = err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError;
      this.count(`${operation} ${timedOut ? 'timeout' : ((err as { code?: string }).code ?? (err as Error).name)}`);
      return undefined;
    }
  }

  /** Counts a failure seen outside `call` (the client library's workers report theirs as events). */
  countError(kind: string): void {
    this.count(kind);
  }

  private count(kind: string): void {
    this.errors++;
    this.errorsByKind.set(kind, (this.errorsByKind.get(kind) ?? 0) + 1);
  }

  async close(): Promise<void> {
    await Promise.all([this.starters.close(), this.workers.close()]);
  }
}
