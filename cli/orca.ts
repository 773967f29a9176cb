// `orca` command line. Model authors validate and simulate models locally;
// `orca serve` (or `orca start` with no process id) runs the service; the
// other commands talk to a running server through the client library
// (docs/cli.md). Each command's module is loaded only when it runs, so a
// command that talks to a server does not load the engine.
import { wantsInstanceStart } from './commands/start-or-serve.ts';

const USAGE = `Usage:
Models, locally:
  orca validate FILE... [--inline-scripts]   check BPMN, DMN and CMMN models; lists every problem, exit 1 if any
  orca simulate FILE [--process ID] [--vars JSON] [--job TYPE=JSON]... [--error TYPE=CODE]... [--inline-scripts]
                [--message NAME[=JSON]]... [--signal NAME[=JSON]]...
                                             run one instance in-process, completing each job it meets
  orca simulate CASE.cmmn [PROCESS.bpmn...] [--vars JSON] [--job TYPE=JSON]... [--occur ID]... [--start ID]...
                                             run one case in-process: trigger the listeners named by --occur, start
                                             the ENABLED items named by --start, complete each job; prints plan items

The service:
  orca serve [--role all|api|engine] [--partitions N] [--port N]
                                             run Orca: the REST API on PORT (default 8080) and the engine;
                                             embedded PGlite + in-process queues unless DATABASE_URL / REDIS_URL.
                                             \`orca start\` with these options (or none) does the same

Kubernetes:
  orca operator                              reconcile ProcessDefinition and DecisionDefinition resources into
                                             deployments on ORCA_URL (docs/operator.md); probes and metrics on PORT

Talking to a server (ORCA_URL, default http://localhost:8080, and ORCA_API_KEY; --url, --api-key override;
--json prints the server's JSON; exit 0 ok, 1 refused, 2 usage, 3 no answer/unavailable, 4 bad credentials):
  orca deploy FILE... [--inline-scripts]     deploy BPMN and DMN files
  orca start PROCESS_ID [--vars JSON] [--idempotency-key KEY]
                                             start an instance (1 credit)
  orca instances [--state S] [--var NAME:VALUE] [--process ID [--version N]] [--started-after T] [--started-before T]
                 [--ended-after T] [--ended-before T] [--parent KEY] [--limit N] [--cursor C]
                                             list instances, newest first (T: RFC 3339)
  orca instance KEY                          one instance: variables, waiting elements, jobs, incidents
  orca incidents [--state OPEN|RESOLVED] [--instance KEY] [--process ID] [--limit N] [--cursor C]
  orca jobs activate TYPE [--max N] [--worker NAME] [--wait MS] [--timeout MS]
  orca jobs complete KEY [--vars JSON]
  orca jobs fail KEY --retries N [--message TEXT]
  orca worker TYPE --exec 'COMMAND' [--max N] [--worker NAME] [--timeout SECONDS] [--wait MS]
                                             run COMMAND for each job: variables as JSON on stdin, a JSON
                                             object on stdout completes it, a non-zero exit fails it (stderr
                                             is the message); Ctrl-C stops after the jobs in hand

Operators (ORCA_URL as above, and the server's ORCA_ADMIN_TOKEN; --admin-token overrides it):
  orca credits grant EMAIL AMOUNT [--reason TEXT]
                                             add credits to the account of an address (a ledger row)
`;

type Run = (argv: string[]) => Promise<number>;

const COMMANDS: Record<string, Run> = {
  validate: async (argv) => (await import('./validate.ts')).runValidate(argv),
  simulate: async (argv) => (await import('./simulate.ts')).runSimulate(argv),
  serve: async (argv) => (await import('./start.ts')).runStart(argv, 'orca serve'),
  start: async (argv) =>
    wantsInstanceStart(argv)
      ? (await import('./commands/start-instance.ts')).runStartInstance(argv)
      : (await import('./start.ts')).runStart(argv, 'orca start'),
  deploy: async (argv) => (await import('./commands/deploy.ts')).runDeploy(argv),
  instances: async (argv) => (await import('./commands/instances.ts')).runInstances(argv),
  instance: async (argv) => (await import('./commands/instances.ts')).runInstance(argv),
  incidents: async (argv) => (await import('./commands/incidents.ts')).runIncidents(argv),
  jobs: async (argv) => (await import('./commands/jobs.ts')).runJobs(argv),
  worker: async (argv) => (await import('./commands/worker.ts')).runWorker(argv),
  credits: async (argv) => (await import('./commands/credits.ts')).runCredits(argv),
  operator: async (argv) => (await import('./commands/operator.ts')).runOperator(argv),
};

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (run === undefined) {
    process.stderr.write(`orca: unknown command '${command}'\n${USAGE}`);
    return 2;
  }
  return run(rest);
}

process.exitCode = await main(process.argv.slice(2));
