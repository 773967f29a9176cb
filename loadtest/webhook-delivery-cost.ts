// What one webhook delivery costs in CPU, apart from the engine: counted, not
// timed, so a shared machine's load changes it little. Writes N
// process_instance.completed events to a fresh outbox in groups (as the
// partition leaders' batches do), then lets a dispatcher deliver them to the
// bench's verifying receiver (bench-e2e-webhook-receiver.ts), and reports
// CPU µs per delivery: of the Postgres backends writing the outbox, of those
// serving the dispatcher (told apart by application_name), of this process
// (the dispatcher) and of the receiver; and how many of the outbox's
// updates were HOT (no index entries). --fillfactor=N sets the outbox's
// fillfactor first (migration 0014 sets 50), to compare; --rate=N writes
// the events at N a second while the dispatcher runs (as under load: it
// then claims and records a few at a time) instead of all before it starts;
// --gather=MS and --busy=MS set the dispatcher's recordGatherMs and busyPollMs.
// --fresh=1 takes the partition leaders' path instead: each group is one
// held batch row (webhook_batches, as the batch statement writes it) whose
// events are handed to the dispatcher in memory, as a leader does after
// its commit; it implies writing while the dispatcher runs.
//   DATABASE_URL=postgres://… npx tsx loadtest/webhook-delivery-cost.ts [--events=20000] [--group=50] [--fillfactor=100] [--rate=1000] [--gather=25] [--fresh=1]
import { sql } from 'drizzle-orm';
import { startWebhookDispatcher } from '../api/webhooks/dispatcher.ts';
import { newSigningSecret } from '../api/webhooks/signing-secret.ts';
import type { WebhookTaker } from '../engine/index.ts';
import { rows, type Db } from '../engine/store/db.ts';
import { webhookEventId, type WebhookEvent } from '../engine/store/webhook-outbox.ts';
import { createTestDatabase } from '../engine/store/testing/database.ts';
import { addEndpoint, enqueueCompleted } from '../test/webhooks/outbox.ts';
import { startBenchReceiver } from './bench-e2e-webhook.ts';
import { postgresCpuMs, processCpuMs } from './process-cpu.ts';

function flag(name: string, fallback: number): number {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found === undefined ? fallback : Number(found.slice(name.length + 3));
}

async function main() {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL must name a Postgres database (the backends are measured through /proc).');
  const events = flag('events', 20_000);
  const group = flag('group', 50);
  const fillfactor = flag('fillfactor', 0);
  const rate = flag('rate', 0);
  const gather = flag('gather', -1);
  const busy = flag('busy', -1);
  const fresh = flag('fresh', 0) > 0;
  const names = { writer: `orca-whcost-w-${process.pid}`, dispatcher: `orca-whcost-d-${process.pid}` };
  const testDb = createTestDatabase();
  const writer = await testDb.open({ applicationName: names.writer });
  const reader = await testDb.open({ applicationName: names.dispatcher, migrate: false });
  const secret = newSigningSecret();
  const receiver = await startBenchReceiver(secret);
  try {
    if (fillfactor > 0) await writer.db.execute(sql.raw(`alter table webhook_deliveries set (fillfactor = ${fillfactor})`));
    const endpoint = await addEndpoint(writer.db, receiver.url, { secret });
    let taker: WebhookTaker | undefined;
    const write = async () => {
      const started = performance.now();
      for (let written = 0; written < events; written += group) {
        if (fresh) await writeHeldBatch(writer.db, taker!, endpoint.account, Math.min(group, events - written));
        else await enqueueCompleted(writer.db, endpoint.account, Math.min(group, events - written));
        if (rate > 0) {
          const due = started + ((written + group) / rate) * 1000;
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
        }
      }
    };
    const writerBefore = await postgresCpuMs(url, names.writer);
    if (rate === 0 && !fresh) await write();
    const [dispatcherPgBefore, selfBefore, receiverBefore] = [await postgresCpuMs(url, names.dispatcher), process.cpuUsage(), processCpuMs(receiver.pid)];
    const dispatcher = startWebhookDispatcher({
      db: reader.db,
      allowPrivateNetworks: true,
      ...(gather >= 0 ? { recordGatherMs: gather } : {}),
      ...(busy > 0 ? { busyPollMs: busy } : {}),
      attach: (t) => (taker = fresh ? t : undefined),
    });
    if (rate > 0 || fresh) await write();
    const writerAfter = await postgresCpuMs(url, names.writer);
    let got = 0;
    while (got < events) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      got = (await receiver.deliveries(got)).length + got;
    }
    // Let the last records be written.
    let pending = 1;
    while (pending > 0) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      [{ pending }] = await rows<{ pending: number }>(
        writer.db,
        sql`select (select count(*) from webhook_deliveries where status = 'pending' or claimed_until is not null)::int
              + (select count(*) from webhook_batches where delivered_at is null)::int as pending`,
      );
    }
    const [dispatcherPgAfter, self, receiverAfter] = [await postgresCpuMs(url, names.dispatcher), process.cpuUsage(selfBefore), processCpuMs(receiver.pid)];
    await dispatcher.stop();
    const [stats] = await rows<{ upd: number; hot: number }>(
      writer.db,
      sql`select n_tup_upd::int as upd, n_tup_hot_upd::int as hot from pg_stat_user_tables where relname = 'webhook_deliveries' and schemaname = current_schema()`,
    );
    const per = (before: number | null, after: number | null) => (before === null || after === null ? '—' : (((after - before) * 1000) / events).toFixed(1));
    console.log(
      `${events} deliveries${fresh ? ' from memory (batch rows)' : ''}, groups of ${group}${rate > 0 ? ` written at ${rate}/s while delivering` : fresh ? ' written while delivering' : ' written first'}, fillfactor ${fillfactor > 0 ? fillfactor : 'as migrated'}` +
        `${gather >= 0 ? `, records gathered ${gather} ms` : ''}${busy > 0 ? `, busy poll ${busy} ms` : ''}; CPU µs per delivery:`,
    );
    console.log(`  Postgres, writing the outbox: ${per(writerBefore, writerAfter)}`);
    console.log(`  Postgres, the dispatcher's claims and records: ${per(dispatcherPgBefore, dispatcherPgAfter)}`);
    console.log(`  the dispatcher (this process${rate > 0 ? ', the writes included' : ''}): ${((self.user + self.system) / events).toFixed(1)}`);
    console.log(`  the receiver: ${per(receiverBefore, receiverAfter)} (refused ${await receiver.refused()})`);
    console.log(`  outbox updates: ${stats.upd}, HOT ${stats.hot} (${((stats.hot / Math.max(1, stats.upd)) * 100).toFixed(0)} %)`);
  } finally {
    await receiver.close();
    await testDb.cleanup();
  }
}

let batchSeq = 0;

/** `count` completions as a leader's batch leaves them: one held batch row, committed, then its events handed over. */
async function writeHeldBatch(db: Db, taker: WebhookTaker, account: string, count: number): Promise<void> {
  const events: WebhookEvent[] = [];
  for (let i = 0; i < count; i++) {
    const key = String(4503599627370496n + BigInt(batchSeq) * 1000n + BigInt(i));
    const data = { processInstanceKey: key, bpmnProcessId: 'order', version: 1 };
    events.push({
      id: webhookEventId('process_instance.completed', key),
      account,
      type: 'process_instance.completed',
      timestamp: new Date().toISOString(),
      data,
    });
  }
  const key = `0:${process.pid}:${batchSeq++}`;
  const stored = events.map((e) => ({ p: 0, i: e.id, a: e.account, ty: e.type, ts: e.timestamp, d: e.data }));
  await db.execute(
    sql`insert into webhook_batches (key, partition, events, claimed_until) values (${key}, 0, ${JSON.stringify(stored)}::jsonb, now() + interval '2 minutes')`,
  );
  taker.take({ key, events });
}

await main();
