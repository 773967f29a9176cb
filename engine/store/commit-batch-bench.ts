// Micro-benchmark of the leader's write path: commitBatch with batches of
// start-like commands (instance document + job + its history records +
// command result, as the partition leader writes for a `start` of the
// one-task model), and findCommandResults for the batch's keys. Reports µs
// per batch and the round trips each call makes (BEGIN and COMMIT count).
// Not a test: run it by hand against real Postgres.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx engine/store/commit-batch-bench.ts [--batches=N] [--sizes=10,100]
//
// Without DATABASE_URL it runs on in-memory PGlite. It works in a schema of
// its own and drops it afterwards. `--compare=DIR` also times the
// commit-batch.ts / commands-repository.ts found in DIR (e.g. the previous
// versions, imports made absolute), alternating batch by batch with this one
// so both see the same machine load.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { compileBpmn } from '../model/index.ts';
import { apply } from '../runtime/apply.ts';
import { commitBatch as currentCommit, type Batch } from './commit-batch.ts';
import { commandsRepository as currentCommands } from './commands-repository.ts';
import { openDatabase } from './database.ts';
import type { Db } from './db.ts';
import { leasesRepository } from './leases-repository.ts';
import { historyRows, jobRow } from './runtime-rows.ts';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=', 2) as [string, string]));
const batches = Number(args.get('batches') ?? 200);
const rounds = Number(args.get('rounds') ?? 3);
const compare = args.get('compare');
const sizes = (args.get('sizes') ?? '10,100').split(',').map(Number);
const url = process.env.DATABASE_URL || undefined;
const schema = `bench_${randomBytes(4).toString('hex')}`;

const compiled = compileBpmn(readFileSync(new URL('../../loadtest/models/one-task.bpmn', import.meta.url), 'utf8'));
if (!compiled.ok) throw new Error('one-task.bpmn does not compile');
const model = compiled.model.processes[0];

const PARTITION = 3;
let sequence = 0;
const nextKey = () => ((BigInt(PARTITION) << 52n) | BigInt(++sequence)).toString();

/** What the leader writes for `size` starts of one-task. */
function startBatch(epoch: number, size: number): { batch: Batch; keys: string[] } {
  const batch: Batch = { partition: PARTITION, epoch, instances: [], jobsUpsert: [], history: [], commands: [] };
  const keys: string[] = [];
  for (let i = 0; i < size; i++) {
    const result = apply(
      null,
      { type: 'start', variables: { orderId: `A-${sequence}`, amount: 42.5, customer: { id: 7, tier: 'gold' } }, version: 1 },
      { model, nextKey, now: Date.now },
    );
    if (!result.ok) throw new Error(result.message);
    const { instance, records } = result;
    batch.instances!.push({ account: 'bench', document: instance });
    for (const job of Object.values(instance.jobs)) batch.jobsUpsert!.push(jobRow('bench', instance, job));
    batch.history!.push(...historyRows('bench', instance.key, records));
    const commandKey = randomBytes(16).toString('hex');
    keys.push(commandKey);
    batch.commands!.push({
      key: commandKey,
      result: { ok: true, value: { processInstanceKey: instance.key, bpmnProcessId: 'one-task', version: 1, state: instance.state } },
    });
  }
  return { batch, keys };
}

interface Implementation {
  name: string;
  commitBatch: (db: Db, batch: Batch) => Promise<void>;
  commandsRepository: typeof currentCommands;
}

async function implementations(): Promise<Implementation[]> {
  const out: Implementation[] = [];
  if (compare) {
    const commit = (await import(`${compare}/commit-batch.ts`)) as { commitBatch: Implementation['commitBatch'] };
    const repo = (await import(`${compare}/commands-repository.ts`)) as { commandsRepository: typeof currentCommands };
    out.push({ name: 'compared', commitBatch: commit.commitBatch, commandsRepository: repo.commandsRepository });
  }
  out.push({ name: 'current', commitBatch: currentCommit, commandsRepository: currentCommands });
  return out;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const database = await openDatabase({ url, dataDir: 'memory://', schema });
  try {
    await database.migrate();
    const lease = await leasesRepository(database.db).acquireLease(PARTITION, 'bench', 600_000);
    if (!lease) throw new Error('no lease');
    // Round trips: every query node-postgres sends goes through Client#query
    // (a pooled query, BEGIN, COMMIT alike), one round trip each. PGlite: not counted.
    let statements = 0;
    const clientQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      statements++;
      return clientQuery.apply(this, args);
    } as typeof pg.Client.prototype.query;
    const impls = await implementations();

    const sample = startBatch(lease.epoch, 1).batch;
    console.log(
      `${database.kind}; per start: 1 instance, ${sample.jobsUpsert!.length} job, ${sample.history!.length} history rows, 1 command; ${batches} batches x ${rounds} rounds, median round`,
    );
    for (const size of sizes) {
      const commitUs = new Map<string, number[]>();
      const lookupUs = new Map<string, number[]>();
      const counts = new Map<string, [number, number]>();
      for (const impl of impls) {
        // Warm-up (connections, plans, JIT).
        for (let i = 0; i < 20; i++) await impl.commitBatch(database.db, startBatch(lease.epoch, size).batch);
        const one = startBatch(lease.epoch, size);
        statements = 0;
        await impl.commitBatch(database.db, one.batch);
        const commitStatements = statements;
        statements = 0;
        await impl.commandsRepository(database.db).findCommandResults(PARTITION, one.keys);
        counts.set(impl.name, [commitStatements, statements]);
      }
      // Batch by batch in turn, so a load spike on this shared machine hits every implementation alike.
      const cpuUs = new Map<string, number>(impls.map((impl) => [impl.name, 0]));
      for (let round = 0; round < rounds; round++) {
        const prepared = impls.map(() => Array.from({ length: batches }, () => startBatch(lease.epoch, size)));
        const commitTotals = impls.map(() => 0);
        const lookupTotals = impls.map(() => 0);
        for (let i = 0; i < batches; i++) {
          for (const [n, impl] of impls.entries()) {
            const { batch, keys } = prepared[n][i];
            const cpu = process.cpuUsage();
            let started = performance.now();
            await impl.commitBatch(database.db, batch);
            commitTotals[n] += performance.now() - started;
            started = performance.now();
            await impl.commandsRepository(database.db).findCommandResults(PARTITION, keys);
            lookupTotals[n] += performance.now() - started;
            const used = process.cpuUsage(cpu);
            cpuUs.set(impl.name, cpuUs.get(impl.name)! + used.user + used.system);
          }
        }
        for (const [n, impl] of impls.entries()) {
          (commitUs.get(impl.name) ?? commitUs.set(impl.name, []).get(impl.name)!).push((commitTotals[n] * 1000) / batches);
          (lookupUs.get(impl.name) ?? lookupUs.set(impl.name, []).get(impl.name)!).push((lookupTotals[n] * 1000) / batches);
        }
      }
      for (const impl of impls) {
        const commit = median(commitUs.get(impl.name)!);
        const lookup = median(lookupUs.get(impl.name)!);
        const [commitStatements, lookupStatements] = counts.get(impl.name)!;
        console.log(
          `${impl.name.padEnd(8)} batch of ${String(size).padStart(3)}: commitBatch ${commit.toFixed(0).padStart(6)} µs/batch (${(commit / size).toFixed(0)} µs/start, ${commitStatements} round trips); ` +
            `findCommandResults ${lookup.toFixed(0).padStart(5)} µs/batch (${lookupStatements} round trip${lookupStatements === 1 ? '' : 's'}); ` +
            `client CPU ${(cpuUs.get(impl.name)! / (rounds * batches)).toFixed(0)} µs/batch (both calls); rounds: ${commitUs
              .get(impl.name)!
              .map((v) => v.toFixed(0))
              .join(' ')}`,
        );
      }
    }
  } finally {
    await database.close();
    if (url) {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`drop schema if exists "${schema}" cascade`);
      await admin.end();
    }
  }
}

await main();
