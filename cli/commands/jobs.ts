// `orca jobs activate TYPE` takes jobs by hand, as a worker would; `orca
// jobs complete KEY` and `orca jobs fail KEY` finish them. SPEC.md: an
// activated job has no lock period, it stays with whoever activated it until
// it is completed or failed, so activating by hand means finishing by hand.
import { compact, note, printJson, printTable } from '../output.ts';
import { connectionOptions, integer, jsonObject, parse, positionals, UsageError } from './args.ts';
import { connect } from './connection.ts';
import { guarded } from './exit-codes.ts';

export function runJobs(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'activate':
      return activate(rest);
    case 'complete':
      return complete(rest);
    case 'fail':
      return fail(rest);
    default:
      return guarded('jobs', argv, () => {
        throw new UsageError(sub === undefined ? 'say activate, complete or fail' : `unknown jobs command '${sub}': say activate, complete or fail`);
      });
  }
}

function activate(argv: string[]): Promise<number> {
  return guarded('jobs activate', argv, async () => {
    const parsed = parse({
      args: argv,
      allowPositionals: true,
      options: { ...connectionOptions, max: { type: 'string' }, worker: { type: 'string' }, wait: { type: 'string' }, timeout: { type: 'string' } },
    });
    const { values } = parsed;
    const [type] = positionals(parsed.positionals, ['TYPE']);
    const maxJobsToActivate = integer(values.max, '--max', 1, 1000) ?? 1;
    const requestTimeout = integer(values.wait, '--wait', 0, 60_000);
    const timeout = integer(values.timeout, '--timeout', 1, 86_400_000);
    const client = connect(values);
    const request = { type, maxJobsToActivate, worker: values.worker ?? 'orca-cli', requestTimeout };
    // Sent only when asked (extension): without it the request is SPEC.md's, with no lock period.
    const jobs = await client.activateJobs(timeout === undefined ? request : { ...request, timeout });
    if (values.json) {
      printJson({ jobs });
      return;
    }
    printTable(
      jobs,
      [
        { header: 'key', value: (j) => j.key },
        { header: 'type', value: (j) => j.type },
        { header: 'instance', value: (j) => j.processInstanceKey },
        { header: 'element', value: (j) => j.elementId },
        { header: 'retries', value: (j) => String(j.retries) },
        { header: 'variables', value: (j) => compact(j.variables) },
      ],
      `no ${type} job available`,
    );
    if (jobs.length > 0)
      note(`${jobs.length === 1 ? 'this job stays' : 'these jobs stay'} with you: orca jobs complete KEY [--vars JSON] or orca jobs fail KEY --retries N`);
  });
}

function complete(argv: string[]): Promise<number> {
  return guarded('jobs complete', argv, async () => {
    const parsed = parse({ args: argv, allowPositionals: true, options: { ...connectionOptions, vars: { type: 'string' } } });
    const [key] = positionals(parsed.positionals, ['KEY']);
    const variables = parsed.values.vars === undefined ? undefined : jsonObject(parsed.values.vars, '--vars');
    await connect(parsed.values).completeJob(key, variables);
    if (parsed.values.json) printJson({ key, completed: true });
    else process.stdout.write(`job ${key} completed\n`);
  });
}

function fail(argv: string[]): Promise<number> {
  return guarded('jobs fail', argv, async () => {
    const parsed = parse({
      args: argv,
      allowPositionals: true,
      options: { ...connectionOptions, retries: { type: 'string' }, message: { type: 'string' } },
    });
    const [key] = positionals(parsed.positionals, ['KEY']);
    const retries = integer(parsed.values.retries, '--retries', 0, 1_000_000);
    if (retries === undefined) throw new UsageError('--retries N is required: the retries left (0 raises an incident)');
    await connect(parsed.values).failJob(key, { retries, errorMessage: parsed.values.message });
    if (parsed.values.json) printJson({ key, failed: true, retries });
    else
      process.stdout.write(
        `job ${key} failed, ${retries} ${retries === 1 ? 'retry' : 'retries'} left${retries === 0 ? ' (its instance is now in INCIDENT)' : ''}\n`,
      );
  });
}
