// A job worker to copy: it works on the "ship" jobs of examples/order.bpmn.
//
//   ORCA_URL=http://localhost:8080 ORCA_API_KEY=orca_… npx tsx examples/worker.ts
//
// The handler gets the job (its variables and custom headers); what it
// returns completes the job with those variables, what it throws fails it
// (retries - 1, and an incident once none are left). Ctrl-C stops taking
// jobs, lets the ones in hand finish, then exits. docs/client.md has the rest.
import { createWorker, JobFailure } from '../client/index.ts'; // In your project: from 'orca/client'

const url = process.env.ORCA_URL ?? 'http://localhost:8080';
const apiKey = process.env.ORCA_API_KEY;
if (!apiKey) {
  console.error('Set ORCA_API_KEY to your API key (and ORCA_URL if the server is not on http://localhost:8080).');
  process.exit(2);
}

const worker = createWorker({
  url,
  apiKey,
  type: 'ship',
  maxJobsActive: 8,
  handler: async (job) => {
    const orderId = String(job.variables.orderId ?? '');
    if (orderId === '') {
      // Retrying would not help: fail with no retries left, so the instance shows an incident at once.
      throw new JobFailure('the order has no orderId', { retries: 0 });
    }
    const tracking = await bookShipment(orderId);
    return { tracking };
  },
  onEvent: (event) => {
    if (event.type === 'job-completed') console.log(`shipped order ${String(event.job.variables.orderId)} (job ${event.job.key})`);
    else if (event.type === 'job-failed') console.log(`job ${event.job.key} failed, ${event.retries} retries left: ${String(event.error)}`);
    else if (event.type === 'poll-error' || event.type === 'outcome-retry') console.warn(`server trouble, trying again: ${String(event.error)}`);
    else if (event.type === 'outcome-refused') console.warn(`the server refused the outcome of job ${event.job.key}: ${String(event.error)}`);
  },
});
console.log(`worker ${worker.name} is waiting for "ship" jobs on ${url}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.log('stopping: finishing the jobs in hand');
    void worker.stop().then(() => process.exit(0));
  });
}

/** Stands in for the real work: a call to the carrier's API. */
async function bookShipment(orderId: string): Promise<string> {
  await new Promise((resolve) => setTimeout(resolve, 50));
  return `TRACK-${orderId}`;
}
