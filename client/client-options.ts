// The options an OrcaClient is made with and those its calls take: the
// client's connection, credentials and retry settings, a call's
// Idempotency-Key, a model file to deploy, and the instance list's query.
import type { RetryOptions } from './retry.ts';
import type { RetryEvent } from './transport.ts';
import type { InstanceState } from './types.ts';

export interface OrcaClientOptions {
  /** The server's base URL, e.g. http://localhost:8080. */
  url: string;
  /** The account API key. */
  apiKey?: string;
  /** 'exchange': trade the API key for a bearer token at POST /api/token and renew it before it expires. Default: send the key itself. */
  token?: 'exchange';
  /** Send through this fetch instead of the built-in undici pools (tests, proxies, other runtimes). */
  fetch?: typeof fetch;
  /**
   * Give up on a request whose answer has not begun within this many
   * milliseconds (or, through the pools, pauses for as long): it fails as a
   * request that got no answer. Default: none, as a long poll must be held
   * for as long as it asked; longer than any `requestTimeout` you poll with.
   */
  timeoutMs?: number;
  /** Milliseconds since the epoch (default Date.now); token expiry and Retry-After dates are read against it. */
  clock?: () => number;
  retry?: RetryOptions;
  /** Told before each repeat of a request (logging, metrics). */
  onRetry?: (event: RetryEvent) => void;
  /** How the client waits between repeats (tests). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Per call: the Idempotency-Key to send (default: a fresh UUID, reused by the call's own repeats). */
export interface CallOptions {
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface ModelFile {
  name: string;
  content: string | Uint8Array;
  /** BPMN only, extension: evaluate zeebe:script expressions inline as Zeebe does (`?inlineScripts=true`, docs/api.md). */
  inlineScripts?: boolean;
}

export interface ListInstancesQuery {
  state?: InstanceState;
  /**
   * Root-variable filters, each `name:value` (the value compared as text).
   * The server filters by the first; further ones are applied to each page
   * here, so a page may then hold fewer than `limit` items.
   */
  variables?: string[];
  bpmnProcessId?: string;
  /** A version of `bpmnProcessId`. */
  version?: number;
  /** RFC 3339 instants: started at or after / before, ended at or after / before. */
  startedAfter?: string;
  startedBefore?: string;
  endedAfter?: string;
  endedBefore?: string;
  /** Instances a call activity of this instance started. */
  parentProcessInstanceKey?: string;
  limit?: number;
  cursor?: string;
}
