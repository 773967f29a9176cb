import { once } from 'node:events';
import net from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './database.ts';
import { rows } from './db.ts';
import { guard, StoreUnavailableError } from './errors.ts';
import { instancesRepository } from './instances-repository.ts';

describe('openDatabase', () => {
  it('fails fast with StoreUnavailableError when nothing listens', async () => {
    const started = Date.now();
    const attempt = openDatabase({ url: 'postgres://postgres@127.0.0.1:1/test', connectTimeoutMs: 2_000 });
    await expect(attempt).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(attempt).rejects.toMatchObject({ retryable: true });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('gives up after connectTimeoutMs when the server accepts but never answers', async () => {
    const sockets = new Set<net.Socket>();
    const server = net.createServer((socket) => void sockets.add(socket));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as net.AddressInfo;
    try {
      const started = Date.now();
      await expect(openDatabase({ url: `postgres://postgres@127.0.0.1:${port}/test`, connectTimeoutMs: 300 })).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      server.close();
    }
  });

  it.runIf(process.env.DATABASE_URL)('names the problem when the server answers but refuses', async () => {
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = '/orca_no_such_database';
    const attempt = openDatabase({ url: url.toString() });
    await expect(attempt).rejects.toThrow(/cannot open database: .*orca_no_such_database.*does not exist/);
    await expect(attempt).rejects.not.toBeInstanceOf(StoreUnavailableError);
  });

  it('rejects bad options with a message naming the field', async () => {
    await expect(openDatabase({ url: 'mysql://x' })).rejects.toThrow(/url: must be a postgres/);
    await expect(openDatabase({ schema: 'Robert"); drop' })).rejects.toThrow(/schema: must be a lower-case SQL identifier/);
  });

  it.runIf(process.env.DATABASE_URL)('turns a connection cut mid-query into StoreUnavailableError', async () => {
    // A TCP proxy in front of Postgres that we can cut.
    const target = new URL(process.env.DATABASE_URL!);
    const sockets = new Set<net.Socket>();
    const proxy = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 5432), target.hostname);
      sockets.add(client).add(upstream);
      client.pipe(upstream).pipe(client);
      const close = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', close);
      upstream.on('error', close);
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    const { port } = proxy.address() as net.AddressInfo;
    const url = new URL(process.env.DATABASE_URL!);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    const database = await openDatabase({ url: url.toString(), connectTimeoutMs: 1_000 });
    try {
      const slow = guard(() => rows(database.db, sql`select pg_sleep(5)`));
      await new Promise((resolve) => setTimeout(resolve, 200));
      for (const socket of sockets) socket.destroy();
      proxy.close();
      const started = Date.now();
      // The query in flight, and the next one through a repository.
      await expect(slow).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(instancesRepository(database.db).listInstances('acme')).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      proxy.close();
      await database.close();
    }
  });

  it.runIf(process.env.DATABASE_URL)('gives the batch commits connections that never plan a sequential scan', async () => {
    const database = await openDatabase({ url: process.env.DATABASE_URL! });
    try {
      // The commit's generic plan is made while tables are empty (see openPg): only the writer forbids the scan.
      expect(await rows(database.writer, sql`show enable_seqscan`)).toEqual([{ enable_seqscan: 'off' }]);
      expect(await rows(database.db, sql`show enable_seqscan`)).toEqual([{ enable_seqscan: 'on' }]);
    } finally {
      await database.close();
    }
  });

  it('keeps embedded data in its data directory across restarts', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'orca-pglite-'));
    try {
      const first = await openDatabase({ dataDir: dir });
      expect(first.kind).toBe('pglite');
      await first.migrate();
      await rows(first.db, sql`insert into accounts (id) values ('acme')`);
      await first.close();
      const second = await openDatabase({ dataDir: dir });
      await second.migrate();
      expect(await rows(second.db, sql`select id from accounts`)).toEqual([{ id: 'acme' }]);
      await second.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
