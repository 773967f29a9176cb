// `orca worker TYPE --exec 'COMMAND'`: a job worker (the client library's
// createWorker) whose handler is a shell command (exec-handler.ts). It logs
// one line per job to stderr (JSON lines with --json) and runs until
// SIGINT or SIGTERM: the first stops activating and lets the commands in
// hand finish and their outcomes reach the server, then exits 0; a second
// ends those commands (their jobs fail, a retry spent, so they are offered
// again rather than left with a worker that is gone); a third exits at once.
// Credentials the server refuses end it with exit 4: waiting will not fix
// them. Other poll errors (a restarting server) are logged and retried.
import { createWorker, OrcaError, type WorkerEvent } from '../../client/index.ts';
import { connectionOptions, integer, parse, positionals, UsageError } from './args.ts';
import { connect } from './connection.ts';
import { execHandler } from './exec-handler.ts';
import { EXIT, guarded } from './exit-codes.ts';

export function runWorker(argv: string[]): Promise<number> {
  return guarded('worker', argv, async () => {
    const parsed = parse({
      args: argv,
      allowPositionals: true,
      options: {
        ...connectionOptions,
        exec: { type: 'string' },
        max: { type: 'string' },
        worker: { type: 'string' },
        timeout: { type: 'string' },
        wait: { type: 'string' },
      },
    });
    const { values } = parsed;
    const [type] = positionals(parsed.positionals, ['TYPE']);
    if (values.exec === undefined || values.exec.trim() === '') throw new UsageError("--exec 'COMMAND' is required: the shell command that works on each job");
    const maxJobsActive = integer(values.max, '--max', 1, 1000) ?? 4;
    const timeoutSeconds = integer(values.timeout, '--timeout', 1, 7 * 24 * 3600);
    const requestTimeout = integer(values.wait, '--wait', 0, 60_000);
    const client = connect(values);
    const handler = execHandler(values.exec, { timeoutMs: timeoutSeconds === undefined ? undefined : timeoutSeconds * 1000 });
    const log = values.json ? (line: Record<string, unknown>) => process.stderr.write(`${JSON.stringify(line)}\n`) : humanLog;

    let refused: OrcaError | undefined;
    // Each `void worker.stop()` below only asks: what is awaited is `worker.stopped`, at the end.
    const worker = createWorker({
      client,
      type,
      name: values.worker,
      maxJobsActive,
      requestTimeout,
      handler,
      onEvent: (event) => {
        if (event.type === 'poll-error' && event.error instanceof OrcaError && (event.error.status === 401 || event.error.status === 403)) {
          refused ??= event.error;
          void worker.stop();
        }
        const line = logLine(event);
        if (line !== undefined) log(line);
      },
    });
    log({ event: 'started', type, worker: worker.name, command: values.exec, maxJobsActive });

    let signals = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      signals++;
      if (signals === 1) {
        log({ event: 'stopping', signal, inHand: handler.running() });
        void worker.stop();
      } else if (signals === 2) {
        log({ event: 'killing', signal, commands: handler.running() });
        handler.killAll();
      } else {
        process.exit(130);
      }
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      await worker.stopped;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await client.close();
    }
    const stats = worker.stats();
    log({ event: 'stopped', completed: stats.completed, failed: stats.failed });
    if (refused !== undefined) throw refused;
    return EXIT.OK;
  });
}

function logLine(event: WorkerEvent): Record<string, unknown> | undefined {
  switch (event.type) {
    case 'job-completed':
      return { event: 'completed', job: event.job.key, instance: event.job.processInstanceKey, ms: event.durationMs };
    case 'job-failed':
      return { event: 'failed', job: event.job.key, instance: event.job.processInstanceKey, retries: event.retries, message: messageOf(event.error) };
    case 'poll-error':
      return { event: 'poll-error', message: messageOf(event.error), retryInMs: event.delayMs };
    case 'outcome-retry':
      return { event: 'outcome-retry', job: event.job.key, outcome: event.outcome, message: messageOf(event.error), retryInMs: event.delayMs };
    case 'outcome-refused':
      return { event: 'outcome-refused', job: event.job.key, outcome: event.outcome, message: messageOf(event.error) };
    default:
      return undefined;
  }
}

function humanLog(line: Record<string, unknown>): void {
  const { event, ...rest } = line;
  const facts = Object.entries(rest).map(([name, value]) => `${name}=${typeof value === 'string' && /\s/.test(value) ? JSON.stringify(value) : String(value)}`);
  process.stderr.write(`orca worker: ${String(event)} ${facts.join(' ')}\n`);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
