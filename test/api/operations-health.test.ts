// /healthz and /readyz over real HTTP: ready when Postgres answers on a
// migrated schema and Redis (when configured) answers PING; otherwise a 503
// problem naming the dependency. Redis going away is simulated with a TCP
// proxy in front of the real one, so the same engine sees it go and come back.
import { createServer, connect, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { eventually } from '../engine/engine-fixture.ts';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { mustDeploy, serviceProcess } from './workflow-support.ts';

const databaseUrl = process.env.DATABASE_URL || undefined;
const redisUrl = process.env.REDIS_URL || undefined;

// Each test starts its own service; PGlite's start is slow on a busy machine.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const fixtures: ApiFixture[] = [];
afterAll(() => Promise.allSettled(fixtures.map((f) => f.close())));

async function start(overrides: Parameters<typeof apiFixture>[0] = {}): Promise<ApiFixture> {
  const api = await apiFixture(overrides);
  fixtures.push(api);
  return api;
}

describe('GET /healthz', () => {
  it('answers 200 without a key, and even when the dependencies are gone', async () => {
    const api = await start();
    const res = await api.call('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ok' });
    await api.engine.close();
    expect((await api.call('GET', '/healthz')).status).toBe(200);
  });
});

describe('GET /readyz', () => {
  it('is 200 with every check up when the store and queues answer', async () => {
    const api = await start();
    const res = await api.call('GET', '/readyz');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      status: 'ready',
      checks: { postgres: { status: 'up' }, migrations: { status: 'up' }, redis: { status: redisUrl ? 'up' : 'not-configured' }, partitions: { status: 'up' } },
    });
  });

  it('is a 503 problem naming postgres when the database is closed', async () => {
    const api = await start();
    await api.engine.close();
    const res = await api.call('GET', '/readyz');
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.json).toMatchObject({ status: 503, code: 'UNAVAILABLE', instance: '/readyz' });
    expect(res.json.failed).toContain('postgres');
    expect(res.json.checks.postgres).toMatchObject({ status: 'down', reason: expect.any(String) });
    expect(res.json.detail).toMatch(/postgres/);
    // No hosts, ports or SQL in an unauthenticated answer.
    expect(res.text).not.toMatch(/127\.0\.0\.1|5432|select /i);
  });

  it.skipIf(!databaseUrl)("is a 503 naming migrations when Orca's tables are missing", async () => {
    const api = await start();
    const schema = api.config.engine.schema;
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(`alter table "${schema}"."partitions" rename to "partitions_hidden"`);
      const res = await api.call('GET', '/readyz');
      expect(res.status).toBe(503);
      expect(res.json.failed).toEqual(['migrations']);
      expect(res.json.checks.postgres.status).toBe('up');
      expect(res.json.checks.migrations.reason).toMatch(/migrations/);
    } finally {
      await client.query(`alter table "${schema}"."partitions_hidden" rename to "partitions"`);
      await client.end();
    }
    expect((await api.call('GET', '/readyz')).status).toBe(200);
  });

  it.skipIf(!databaseUrl)('is a 503 naming partitions while a partition this pod leads cannot commit, and 200 once it can', async () => {
    const api = await start();
    const { apiKey } = await api.newAccount();
    await mustDeploy(api, apiKey, serviceProcess('held', 'held-work'));
    const schema = api.config.engine.schema;
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    let started: Promise<unknown> | undefined;
    try {
      // Every commit writes the command log: a constraint it can never meet stalls the start's partition.
      await client.query(`alter table "${schema}"."commands" add constraint refuse_all check (false) not valid`);
      started = api.call('POST', '/api/v1/process-instances', { apiKey, json: { bpmnProcessId: 'held' } });
      const res = await eventually(async () => {
        const r = await api.call('GET', '/readyz');
        return r.status === 503 ? r : undefined;
      }, 'readiness to report the stalled partition');
      expect(res.json.failed).toEqual(['partitions']);
      expect(res.json.checks.partitions.reason).toMatch(/^partition \d+ led here cannot commit$/);
      expect(res.json.checks.postgres.status).toBe('up');
    } finally {
      await client.query(`alter table "${schema}"."commands" drop constraint if exists refuse_all`);
      await client.end();
    }
    await started;
    await eventually(async () => ((await api.call('GET', '/readyz')).status === 200 ? true : undefined), 'readiness once commits go through again');
  });

  it.skipIf(!databaseUrl)('is a 503 naming migrations when a committed migration is not applied', async () => {
    const api = await start();
    const schema = api.config.engine.schema;
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(`create table "${schema}"."migrations_backup" as select * from "${schema}"."__drizzle_migrations"`);
      await client.query(`delete from "${schema}"."__drizzle_migrations" where id = (select max(id) from "${schema}"."__drizzle_migrations")`);
      const res = await api.call('GET', '/readyz');
      expect(res.status).toBe(503);
      expect(res.json.failed).toEqual(['migrations']);
      expect(res.json.checks.migrations.reason).toBe('1 committed migration(s) are not applied');
    } finally {
      await client.query(`delete from "${schema}"."__drizzle_migrations"`);
      await client.query(`insert into "${schema}"."__drizzle_migrations" select * from "${schema}"."migrations_backup"`);
      await client.end();
    }
    expect((await api.call('GET', '/readyz')).status).toBe(200);
  });

  it.skipIf(!redisUrl)('is a 503 naming redis while Redis does not answer, and 200 again once it does', async () => {
    const target = new URL(redisUrl!);
    const proxy = new TcpProxy(target.hostname, Number(target.port || 6379));
    const port = await proxy.open(0);
    const proxied = new URL(redisUrl!);
    proxied.host = `127.0.0.1:${port}`;
    const api = await start({ config: { engine: { redisUrl: proxied.toString() } } });
    try {
      expect((await api.call('GET', '/readyz')).status).toBe(200);
      await proxy.shut();
      const res = await api.call('GET', '/readyz');
      expect(res.status).toBe(503);
      expect(res.json.failed).toEqual(['redis']);
      expect(res.json.checks.postgres.status).toBe('up');
      await proxy.open(port);
      await eventually(async () => ((await api.call('GET', '/readyz')).status === 200 ? true : undefined), 'ready again', 15_000);
    } finally {
      await proxy.open(port).catch(() => {});
      await api.close();
      await proxy.shut();
    }
  });
});

/** Forwards TCP to Redis; shut() drops every connection and stops listening, as a dead Redis would look. */
class TcpProxy {
  #server: Server | undefined;
  readonly #sockets = new Set<Socket>();
  constructor(
    readonly host: string,
    readonly port: number,
  ) {}

  async open(port: number): Promise<number> {
    if (this.#server) return port;
    const server = createServer((client) => {
      const upstream = connect(this.port, this.host);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.#server = server;
    return (server.address() as { port: number }).port;
  }

  async shut(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
