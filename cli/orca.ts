// `orca` command line: model authors validate and simulate models; `start`
// runs the service (the API arrives with the REST issue).
import { runSimulate } from './simulate.ts';
import { runStart } from './start.ts';
import { runValidate } from './validate.ts';

const USAGE = `Usage:
  orca validate FILE...                      check BPMN models; lists every problem, exit 1 if any
  orca simulate FILE [--process ID] [--vars JSON] [--job TYPE=JSON]...
                                             run one instance in-process, completing each job it meets
  orca start [--role all|api|engine] [--partitions N] [--port N]
                                             run Orca: the REST API on PORT (default 8080) and the engine;
                                             embedded PGlite + in-process queues unless DATABASE_URL / REDIS_URL
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'validate':
      return runValidate(rest);
    case 'simulate':
      return runSimulate(rest);
    case 'start':
      return runStart(rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return command === undefined ? 1 : 0;
    default:
      process.stderr.write(`orca: unknown command '${command}'\n${USAGE}`);
      return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
