// `orca` command line: model authors validate and simulate models; `start`
// runs the service (the API arrives with the REST issue).
import { runSimulate } from './simulate.ts';
import { runValidate } from './validate.ts';

const USAGE = `Usage:
  orca validate FILE...                      check BPMN models; lists every problem, exit 1 if any
  orca simulate FILE [--process ID] [--vars JSON] [--job TYPE=JSON]...
                                             run one instance in-process, completing each job it meets
  orca start                                 run the Orca service (not yet available)
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'validate':
      return runValidate(rest);
    case 'simulate':
      return runSimulate(rest);
    case 'start':
      process.stderr.write('orca start: the service is not available yet — the REST API is being built (see README.md). Try `orca validate` and `orca simulate`.\n');
      return 0;
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
