// An in-process fake Kubernetes API server on loopback, for testing the
// operator without a cluster: real apiserver semantics for the resources the
// operator uses (see fake-store.ts and fake-watch.ts), bearer-token auth from
// the kubeconfig it hands out, a log of every request, fault injection, and
// direct object access so a test can play the user (kubectl) or another
// controller without going through HTTP.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { coreVersions, group, groupList, resourceList, versionInfo } from './fake-discovery.ts';
import { selfSignedCertificate } from './fake-certificate.ts';
import { FakeFaults } from './fake-faults.ts';
import { ListSnapshots } from './fake-pagination.ts';
import { BUILTIN_TYPES, loadCrdTypes, ORCA_TYPES, repositoryCrdFiles, type ResourceType } from './fake-resources.ts';
import { handle, notFoundPath, parseTarget } from './fake-routes.ts';
import type { KubeObject } from './fake-selectors.ts';
import { mergePatch } from './fake-patch.ts';
import { ApiError, reasonFor, statusObject } from './fake-status.ts';
import { wantsTable } from './fake-table.ts';
import { FakeStore, type Admit, type WriteOptions } from './fake-store.ts';
import { openWatch, type ActiveWatch } from './fake-watch.ts';

export type { KubeObject } from './fake-selectors.ts';
export type { PathPredicate } from './fake-faults.ts';
export type { Admit } from './fake-store.ts';

export interface FakeApiServerOptions {
  /** CustomResourceDefinition files; default the repository's crds/*.yaml, else a built-in table of Orca's kinds. */
  crdFiles?: string[];
  /** How many events watches can be replayed from before a resourceVersion expires (default 10000). */
  historyLimit?: number;
  /** How often open watches that allow them get a BOOKMARK (default 1000 ms; 0 = only on sendBookmarks()). */
  bookmarkIntervalMs?: number;
  /**
   * Serve HTTPS with a fresh self-signed certificate (in the kubeconfig as its CA) instead of plain HTTP.
   * Needed for kubectl, which sends no bearer token over plain HTTP.
   */
  tls?: boolean;
  /**
   * Admission of custom resources beyond defaulting: pruning, schema and CEL validation, e.g. the CRD tests'
   * admit() (test/crds/admit.ts). Without it the fake stores any custom resource it can parse.
   */
  admit?: Admit;
}

export interface LoggedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** 0 until the response status is known. */
  status: number;
}

export interface FakeApiServer {
  url: string;
  token: string;
  /** PEM of the CA to trust, with `tls: true`. */
  ca?: string;
  /** YAML text of a kubeconfig for this server, token auth, namespace default. */
  kubeconfig(): string;
  /** Writes kubeconfig() to `dir/kubeconfig` and returns the path. */
  writeKubeconfig(dir: string): string;
  close(): Promise<void>;
  /** Every resourceVersion up to now expires: watches from an older one get a 410 Expired ERROR event. */
  compact(): void;
  /** The current (latest) resourceVersion. */
  resourceVersion(): string;
  faults: FakeFaults;
  /** Sends a BOOKMARK now on every open watch that allows them (and is not stalled). */
  sendBookmarks(): void;
  /** The open watches' paths. */
  openWatches(): string[];
  /** Resolves once at least `count` watches (whose path matches, if given) are open. */
  whenWatching(count?: number, pathIncludes?: string): Promise<void>;
  requests: LoggedRequest[];
  types: readonly ResourceType[];
  create(object: KubeObject): KubeObject;
  get(apiVersion: string, kind: string, namespace: string | undefined, name: string): KubeObject | undefined;
  /** A whole-object write as a client's PUT; without metadata.resourceVersion it is unconditional. */
  update(object: KubeObject, options?: WriteOptions): KubeObject;
  /** A merge patch (RFC 7386), as `kubectl patch --type merge`. */
  patch(apiVersion: string, kind: string, namespace: string | undefined, name: string, patch: unknown, options?: WriteOptions): KubeObject;
  delete(apiVersion: string, kind: string, namespace: string | undefined, name: string): { object: KubeObject; deleted: boolean };
  list(apiVersion: string, kind: string, namespace?: string): KubeObject[];
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  response.end(text);
}

export async function startFakeApiServer(options: FakeApiServerOptions = {}): Promise<FakeApiServer> {
  const crdFiles = options.crdFiles ?? repositoryCrdFiles();
  const custom = crdFiles.length > 0 ? loadCrdTypes(crdFiles) : ORCA_TYPES;
  const types: readonly ResourceType[] = [...BUILTIN_TYPES, ...custom];
  const store = new FakeStore(options.historyLimit ?? 10_000, options.admit);
  const snapshots = new ListSnapshots();
  const token = randomBytes(24).toString('hex');
  const watches = new Set<ActiveWatch>();
  const waiters: { count: number; pathIncludes?: string; resolve: () => void }[] = [];
  const faults = new FakeFaults(() => watches);
  const requests: LoggedRequest[] = [];
  let serverAddress = '';

  const checkWaiters = () => {
    for (const waiter of [...waiters]) {
      const open = [...watches].filter((watch) => !waiter.pathIncludes || watch.path.includes(waiter.pathIncludes)).length;
      if (open >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };

  const discovery = (segments: string[]): unknown => {
    const path = segments.join('/');
    if (path === 'version') return versionInfo();
    if (path === 'api') return coreVersions(serverAddress);
    if (path === 'apis') return groupList(types);
    if (segments[0] === 'api' && segments.length === 2) return resourceList(types, '', segments[1]);
    if (segments[0] === 'apis' && segments.length === 2) return group(types, segments[1]);
    if (segments[0] === 'apis' && segments.length === 3) return resourceList(types, segments[1], segments[2]);
    return undefined;
  };

  const serve = async (request: IncomingMessage, response: ServerResponse, entry: LoggedRequest): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const method = request.method ?? 'GET';
    const fail = (status: number, body: unknown, headers?: Record<string, string>) => {
      entry.status = status;
      sendJson(response, status, body, headers);
    };
    if (request.headers.authorization !== `Bearer ${token}`) return fail(401, statusObject(401, 'Unauthorized', 'Unauthorized'));
    const injected = faults.take(url.pathname, method);
    if (injected?.retryAfterSeconds !== undefined) {
      return fail(429, statusObject(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds: injected.retryAfterSeconds }), {
        'Retry-After': String(injected.retryAfterSeconds),
      });
    }
    if (injected) return fail(injected.status, statusObject(injected.status, reasonFor(injected.status), `injected fault: ${injected.status}`));

    const segments = url.pathname.split('/').filter(Boolean);
    const text = await readBody(request);
    try {
      const target = parseTarget(types, segments);
      if (!target) {
        const document = method === 'GET' ? discovery(segments) : undefined;
        if (document === undefined) throw notFoundPath();
        entry.status = 200;
        return sendJson(response, 200, document);
      }
      const watching = method === 'GET' && target.name === undefined && ['true', '1'].includes(url.searchParams.get('watch') ?? '');
      if (watching) {
        entry.status = 200;
        const watch = openWatch(
          store,
          { path: url.pathname, resource: target.resource, namespace: target.namespace, query: url.searchParams, asTable: wantsTable(request.headers.accept) },
          response,
          (closed) => watches.delete(closed),
        );
        if (watch) {
          watches.add(watch);
          checkWaiters();
        }
        return;
      }
      const contentType = (request.headers['content-type'] ?? '').split(';')[0].trim();
      const reply = handle(store, snapshots, target, method, { contentType, text, asTable: wantsTable(request.headers.accept) }, url.searchParams);
      entry.status = reply.status;
      sendJson(response, reply.status, reply.body);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      fail(error.code, error.toStatus());
    }
  };

  const listener: RequestListener = (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const entry: LoggedRequest = { method: request.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), status: 0 };
    requests.push(entry);
    serve(request, response, entry).catch((error: unknown) => {
      entry.status = 500;
      if (!response.headersSent) sendJson(response, 500, statusObject(500, 'InternalError', `fake API server: ${(error as Error).message}`));
      else response.destroy();
    });
  };
  const certificate = options.tls ? selfSignedCertificate() : undefined;
  const server = certificate ? createHttpsServer({ cert: certificate.cert, key: certificate.key }, listener) : createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  serverAddress = `127.0.0.1:${port}`;
  const url = `${certificate ? 'https' : 'http'}://${serverAddress}`;

  const sendBookmarks = () => {
    for (const watch of watches) watch.bookmark(store.currentResourceVersion);
  };
  const interval = options.bookmarkIntervalMs ?? 1000;
  const bookmarkTimer = interval > 0 ? setInterval(sendBookmarks, interval) : undefined;
  bookmarkTimer?.unref();

  const typeOf = (apiVersion: string | undefined, kind: string | undefined): ResourceType => {
    const type = types.find((candidate) => candidate.apiVersion === apiVersion && candidate.kind === kind);
    if (!type) throw new Error(`fake API server: no resource type ${String(apiVersion)} ${String(kind)}`);
    return type;
  };
  const namespaceOf = (type: ResourceType, namespace: string | undefined) => (type.namespaced ? (namespace ?? 'default') : undefined);

  const kubeconfig = () =>
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '  - name: fake',
      '    cluster:',
      `      server: ${url}`,
      certificate
        ? `      certificate-authority-data: ${Buffer.from(certificate.cert).toString('base64')}`
        : // Plain HTTP on loopback: client-node refuses http:// servers unless TLS verification is off.
          '      insecure-skip-tls-verify: true',
      'contexts:',
      '  - name: fake',
      '    context:',
      '      cluster: fake',
      '      user: fake',
      '      namespace: default',
      'current-context: fake',
      'users:',
      '  - name: fake',
      '    user:',
      `      token: ${token}`,
      '',
    ].join('\n');

  return {
    url,
    token,
    ca: certificate?.cert,
    kubeconfig,
    writeKubeconfig(dir) {
      const path = join(dir, 'kubeconfig');
      writeFileSync(path, kubeconfig(), { mode: 0o600 });
      return path;
    },
    async close() {
      clearInterval(bookmarkTimer);
      for (const watch of [...watches]) {
        watch.response.socket?.destroy();
        watch.close();
      }
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    compact() {
      store.compact();
      snapshots.compact();
    },
    resourceVersion: () => String(store.currentResourceVersion),
    faults,
    sendBookmarks,
    openWatches: () => [...watches].map((watch) => watch.path),
    whenWatching(count = 1, pathIncludes) {
      return new Promise<void>((resolve) => {
        waiters.push({ count, pathIncludes, resolve });
        checkWaiters();
      });
    },
    requests,
    types,
    create(object) {
      const type = typeOf(object.apiVersion, object.kind);
      return store.create(type, namespaceOf(type, object.metadata?.namespace), object);
    },
    get(apiVersion, kind, namespace, name) {
      const type = typeOf(apiVersion, kind);
      try {
        return store.get(type, namespaceOf(type, namespace), name);
      } catch (error) {
        if (error instanceof ApiError && error.code === 404) return undefined;
        throw error;
      }
    },
    update(object, writeOptions) {
      const type = typeOf(object.apiVersion, object.kind);
      const namespace = namespaceOf(type, object.metadata.namespace);
      const body = structuredClone(object);
      body.metadata.resourceVersion ??= store.get(type, namespace, object.metadata.name).metadata.resourceVersion;
      return store.update(type, namespace, object.metadata.name, body, writeOptions);
    },
    patch(apiVersion, kind, namespace, name, patch, writeOptions) {
      const type = typeOf(apiVersion, kind);
      const current = store.get(type, namespaceOf(type, namespace), name);
      const next = mergePatch(current, patch) as KubeObject;
      if ((patch as KubeObject).metadata?.resourceVersion === undefined) next.metadata.resourceVersion = current.metadata.resourceVersion;
      return store.update(type, namespaceOf(type, namespace), name, next, writeOptions);
    },
    delete(apiVersion, kind, namespace, name) {
      const type = typeOf(apiVersion, kind);
      return store.delete(type, namespaceOf(type, namespace), name);
    },
    list(apiVersion, kind, namespace) {
      const type = typeOf(apiVersion, kind);
      return store.list(type, namespace).items;
    },
  };
}
