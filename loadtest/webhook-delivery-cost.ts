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
//   DATABASE_URL=postgres://… npx tsx loadtest/webhook-delivery-cost.ts [--events=20000] [--group=50] [--fillfactor=100] [--rate=1000] [--gather=25]
import { sql } from 'drizzle-orm';
import { startWebhookDispatcher } from '../api/webhooks/dispatcher.ts';
import { newSigningSecret } from '../api/webhooks/signing-secret.ts';
import { rows } from '../engine/store/db.ts';
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
  const names = { writer: `orca-whcost-w-${process.pid}`, dispatcher: `orca-whcost-d-${process.pid}` };
  const testDb = createTestDatabase();
  const writer = await testDb.open({ applicationName: names.writer });
  const reader = await testDb.open({ applicationName: names.dispatcher, migrate: false });
  const secret = newSigningSecret();
  const receiver = await startBenchReceiver(secret);
  try {
    if (fillfactor > 0) await writer.db.execute(sql.raw(`alter table webhook_deliveries set (fillfactor = ${fillfactor})`));
    const endpoint = await addEndpoint(writer.db, receiver.url, { secret });
    const write = async () => {
      const started = performance.now();
      for (let written = 0; written < events; written += group) {
        await enqueueCompleted(writer.db, endpoint.account, Math.min(group, events - written));
        if (rate > 0) {
          const due = started + ((written + group) / rate) * 1000;
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
        }
      }
    };
    const writerBefore = await postgresCpuMs(url, names.writer);
    if (rate === 0) await write();
    const [dispatcherPgBefore, selfBefore, receiverBefore] = [await postgresCpuMs(url, names.dispatcher), process.cpuUsage(), processCpuMs(receiver.pid)];
    const dispatcher = startWebhookDispatcher({
      db: reader.db,
      allowPrivateNetworks: true,
      ...(gather >= 0 ? { recordGatherMs: gather } : {}),
      ...(busy > 0 ? { busyPollMs: busy } : {}),
    });
    if (rate > 0) await write();
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
        sql`select count(*)::int as pending from webhook_deliveries where status = 'pending' or claimed_until is not null`,
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
      `${events} deliveries, groups of ${group}${rate > 0 ? ` written at ${rate}/s while delivering` : ' written first'}, fillfactor ${fillfactor > 0 ? fillfactor : 'as migrated'}` +
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

await main();
