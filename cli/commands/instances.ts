// `orca instances` lists process instances, newest first, one page at a
// time (the next page's cursor is noted on stderr); `orca instance KEY`
// shows one with its variables, waiting elements, jobs and incidents. The
// filters are the server's own (filter.state, filter.variable,
// filter.bpmnProcessId and .version, the start and end date ranges,
// filter.parentProcessInstanceKey) and the server judges their values.
import type { InstanceState } from '../../client/index.ts';
import { compact, orDash, printFields, printJson, printPage, printTable } from '../output.ts';
import { connectionOptions, integer, paging, pagingOptions, parse, positionals } from './args.ts';
import { connect } from './connection.ts';
import { guarded } from './exit-codes.ts';

export function runInstances(argv: string[]): Promise<number> {
  return guarded('instances', argv, async () => {
    const parsed = parse({
      args: argv,
      allowPositionals: true,
      options: {
        ...connectionOptions,
        state: { type: 'string' },
        var: { type: 'string', multiple: true },
        process: { type: 'string' },
        version: { type: 'string' },
        'started-after': { type: 'string' },
        'started-before': { type: 'string' },
        'ended-after': { type: 'string' },
        'ended-before': { type: 'string' },
        parent: { type: 'string' },
        ...pagingOptions,
      },
    });
    const { values } = parsed;
    positionals(parsed.positionals, []);
    const client = connect(values);
    const page = await client.listInstances({
      // The server judges the value: an unknown state is its 400, naming query.filter.state.
      state: values.state?.toUpperCase() as InstanceState,
      variables: values.var,
      bpmnProcessId: values.process,
      version: integer(values.version, '--version', 1, 2_147_483_647),
      startedAfter: values['started-after'],
      startedBefore: values['started-before'],
      endedAfter: values['ended-after'],
      endedBefore: values['ended-before'],
      parentProcessInstanceKey: values.parent,
      ...paging(values),
    });
    printPage(
      page,
      values.json,
      [
        { header: 'key', value: (i) => i.processInstanceKey },
        { header: 'process', value: (i) => `${i.bpmnProcessId} v${i.version}` },
        { header: 'state', value: (i) => i.state },
        { header: 'created', value: (i) => i.createdAt },
        { header: 'variables', value: (i) => compact(i.variables) },
      ],
      'instances',
    );
  });
}

export function runInstance(argv: string[]): Promise<number> {
  return guarded('instance', argv, async () => {
    const parsed = parse({ args: argv, allowPositionals: true, options: { ...connectionOptions } });
    const [key] = positionals(parsed.positionals, ['KEY']);
    const client = connect(parsed.values);
    const instance = await client.getInstance(key);
    if (parsed.values.json) {
      printJson(instance);
      return;
    }
    printFields([
      ['key', instance.processInstanceKey],
      ['process', `${instance.bpmnProcessId} v${instance.version}`],
      ['state', instance.state],
      ['parent', orDash(instance.parentProcessInstanceKey)],
      ['created', instance.createdAt],
      ['ended', orDash(instance.endedAt)],
    ]);
    process.stdout.write(`\nvariables:\n${JSON.stringify(instance.variables, null, 2)}\n`);
    if (instance.activeElements.length > 0) {
      process.stdout.write('\nwaiting at:\n');
      printTable(
        instance.activeElements,
        [
          { header: 'element', value: (e) => e.elementId },
          { header: 'element instance', value: (e) => e.elementInstanceKey },
          { header: 'job', value: (e) => orDash(e.jobKey) },
          { header: 'incident', value: (e) => orDash(e.incidentKey) },
        ],
        '',
      );
    }
    if (instance.jobs.length > 0) {
      process.stdout.write('\njobs:\n');
      printTable(
        instance.jobs,
        [
          { header: 'key', value: (j) => j.key },
          { header: 'type', value: (j) => j.type },
          { header: 'element', value: (j) => j.elementId },
          { header: 'retries', value: (j) => String(j.retries) },
          { header: 'state', value: (j) => j.state },
        ],
        '',
      );
    }
    if (instance.incidents.length > 0) {
      process.stdout.write('\nincidents:\n');
      printTable(
        instance.incidents,
        [
          { header: 'id', value: (i) => orDash(i.id as string) },
          { header: 'type', value: (i) => orDash(i.type as string) },
          { header: 'element', value: (i) => orDash(i.elementId as string) },
          { header: 'state', value: (i) => orDash(i.state as string) },
          { header: 'message', value: (i) => orDash(i.message as string) },
        ],
        '',
      );
    }
  });
}
