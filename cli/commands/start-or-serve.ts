// `orca start` was the service before it also started instances. It stays
// the service when given no process id (`npm start`, `orca start --role
// api`); with one (`orca start order --vars …`) it starts an instance. A
// flag only the instance start knows, without a process id, goes to the
// instance start too, which then says the id is missing, rather than
// starting a server the user did not ask for.
import { parseArgs } from 'node:util';

const INSTANCE_ONLY = ['vars', 'idempotency-key', 'url', 'api-key', 'json'];

export function wantsInstanceStart(argv: string[]): boolean {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: false,
    options: {
      role: { type: 'string' },
      partitions: { type: 'string' },
      port: { type: 'string' },
      vars: { type: 'string' },
      'idempotency-key': { type: 'string' },
      url: { type: 'string' },
      'api-key': { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  return positionals.length > 0 || INSTANCE_ONLY.some((name) => values[name] !== undefined);
}
