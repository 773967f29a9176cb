// `orca incidents [--state OPEN|RESOLVED] [--instance KEY] [--process ID]`: the account's
// incidents in key order, one page at a time.
import type { IncidentQuery } from '../../client/index.ts';
import { printPage } from '../output.ts';
import { connectionOptions, paging, pagingOptions, parse, positionals } from './args.ts';
import { connect } from './connection.ts';
import { guarded } from './exit-codes.ts';

export function runIncidents(argv: string[]): Promise<number> {
  return guarded('incidents', argv, async () => {
    const parsed = parse({
      args: argv,
      allowPositionals: true,
      options: {
        ...connectionOptions,
        state: { type: 'string' },
        instance: { type: 'string' },
        process: { type: 'string' },
        ...pagingOptions,
      },
    });
    const { values } = parsed;
    positionals(parsed.positionals, []);
    const client = connect(values);
    const page = await client.listIncidents({
      // The server judges the value: an unknown state is its 400, naming query.filter.state.
      state: values.state?.toUpperCase() as IncidentQuery['state'],
      processInstanceKey: values.instance,
      bpmnProcessId: values.process,
      ...paging(values),
    });
    printPage(
      page,
      values.json,
      [
        { header: 'id', value: (i) => i.id },
        { header: 'instance', value: (i) => i.processInstanceKey },
        { header: 'element', value: (i) => i.elementId },
        { header: 'type', value: (i) => i.type },
        { header: 'state', value: (i) => i.state },
        { header: 'created', value: (i) => i.createdAt },
        { header: 'message', value: (i) => i.message },
      ],
      'incidents',
    );
  });
}
