// A dispatcher in a process of its own, for a test to kill: it works the
// outbox of the Postgres schema it is given (DATABASE_URL, ORCA_DB_SCHEMA)
// with claims of CLAIM_MS, and prints `ready` once started.
import { startWebhookDispatcher } from '../../api/webhooks/dispatcher.ts';
import { openDatabase } from '../../engine/store/database.ts';

const database = await openDatabase({ url: process.env.DATABASE_URL, schema: process.env.ORCA_DB_SCHEMA });
startWebhookDispatcher({ db: database.db, allowPrivateNetworks: true, idlePollMs: 20, claimMs: Number(process.env.CLAIM_MS) });
process.stdout.write('ready\n');
