// `orca start PROCESS_ID [--vars JSON] [--idempotency-key KEY]`: starts an
// instance of the latest version of a deployed process (1 credit). With
// --idempotency-key a script may run the same line again after a lost
// answer and still get one instance (the server's Idempotency-Key
// extension); without it the client library makes a key per call, which
// covers its own retries but not a second run of the command.
import { printJson, printTable } from '../output.ts';
import { connectionOptions, jsonObject, parse, positionals } from './args.ts';
import { connect } from './connection.ts';
import { guarded } from './exit-codes.ts';

export function runStartInstance(argv: string[]): Promise<number> {
  return guarded('start', argv, async () => {
    const parsed = parse({
      args: argv,
      allowPositionals: true,
      options: { ...connectionOptions, vars: { type: 'string' }, 'idempotency-key': { type: 'string' } },
    });
    const { values } = parsed;
    const [bpmnProcessId] = positionals(parsed.positionals, ['PROCESS_ID']);
    const variables = values.vars === undefined ? undefined : jsonObject(values.vars, '--vars');
    const client = connect(values);
    const started = await client.startInstance(
      { bpmnProcessId, variables },
      values['idempotency-key'] === undefined ? undefined : { idempotencyKey: values['idempotency-key'] },
    );
    if (values.json) printJson(started);
    else
      printTable(
        [started],
        [
          { header: 'key', value: (s) => s.processInstanceKey },
          { header: 'process', value: (s) => s.bpmnProcessId },
          { header: 'version', value: (s) => String(s.version) },
          { header: 'state', value: (s) => s.state },
        ],
        'no instance',
      );
  });
}
