// `orca deploy FILE…`: deploys BPMN (`.bpmn`) and DMN (`.dmn`) files, DMN
// files first so a process's decisions are there before it is. One request
// per file: what was deployed before a refusal stays deployed and is
// printed before the refusal. Warnings the server gives (elements that run
// differently from Camunda 8) go to stderr. The client library sends a file where its
// name says; a name that contradicts the namespace the XML declares is
// refused here, before anything is sent.
import { basename } from 'node:path';
import type { Deployment } from '../../client/index.ts';
import { isDmn } from '../model-kind.ts';
import { printJson, printTable } from '../output.ts';
import { readModelFile } from '../read-model-file.ts';
import { connect } from './connection.ts';
import { connectionOptions, parse, UsageError } from './args.ts';
import { guarded } from './exit-codes.ts';

interface Row {
  file: string;
  kind: 'process' | 'decision';
  id: string;
  version: number;
  isNew: boolean;
}

export function runDeploy(argv: string[]): Promise<number> {
  return guarded('deploy', argv, async () => {
    const { values, positionals } = parse({
      args: argv,
      allowPositionals: true,
      options: { ...connectionOptions, 'idempotency-key': { type: 'string' }, 'inline-scripts': { type: 'boolean' } },
    });
    if (positionals.length === 0) throw new UsageError('name at least one BPMN or DMN file');
    if (values['idempotency-key'] !== undefined && positionals.length > 1) throw new UsageError('--idempotency-key goes with one file at a time');
    const files: { name: string; path: string; content: string; dmn: boolean }[] = [];
    for (const path of positionals) {
      const read = await readModelFile(path);
      if (!read.ok) throw new UsageError(read.error);
      files.push({ name: basename(path), path, content: read.xml, dmn: kindOf(path, read.xml) === 'decision' });
    }
    const client = connect(values);
    const ordered = [...files.filter((f) => f.dmn), ...files.filter((f) => !f.dmn)];
    const answers: unknown[] = [];
    const rows: Row[] = [];
    const warnings: string[] = [];
    const print = () => {
      if (values.json) printJson(answers);
      else printTable(rows, COLUMNS, 'nothing deployed');
      for (const line of warnings) process.stderr.write(`${line}\n`);
    };
    try {
      for (const file of ordered) {
        const answer = await client.deploy(
          values['inline-scripts'] && !file.dmn ? { name: file.name, content: file.content, inlineScripts: true } : { name: file.name, content: file.content },
          values['idempotency-key'] === undefined ? undefined : { idempotencyKey: values['idempotency-key'] },
        );
        answers.push({ file: file.path, ...answer });
        rows.push(...rowsOf(file.path, answer));
        if (answer.kind === 'process') {
          for (const w of answer.warnings ?? [])
            warnings.push(`${file.path}: warning: ${w.elementId === null ? '' : `[${w.elementId}] `}${w.code}: ${w.message}`);
        }
      }
    } catch (error) {
      if (answers.length > 0) print();
      throw error;
    }
    print();
  });
}

const COLUMNS = [
  { header: 'file', value: (r: Row) => r.file },
  { header: 'kind', value: (r: Row) => r.kind },
  { header: 'id', value: (r: Row) => r.id },
  { header: 'version', value: (r: Row) => String(r.version) },
  { header: 'new', value: (r: Row) => (r.isNew ? 'yes' : 'no (same XML as the latest version)') },
];

function kindOf(path: string, xml: string): 'process' | 'decision' {
  const named = /\.bpmn(\.xml)?$/i.test(path) ? 'process' : /\.dmn(\.xml)?$/i.test(path) ? 'decision' : undefined;
  if (named === undefined) throw new UsageError(`${path}: name BPMN files .bpmn and DMN files .dmn (the server is told the kind by the name)`);
  const declared = isDmn(xml) ? 'decision' : 'process';
  if (named !== declared)
    throw new UsageError(`${path} holds a ${declared === 'decision' ? 'DMN' : 'BPMN'} model: name it .${declared === 'decision' ? 'dmn' : 'bpmn'}`);
  return named;
}

function rowsOf(file: string, answer: Deployment): Row[] {
  if (answer.kind === 'decision')
    return answer.decisions.map((d) => ({ file, kind: 'decision' as const, id: d.decisionId, version: d.version, isNew: d.isNew }));
  return answer.deployments.map((d) => ({ file, kind: 'process' as const, id: d.bpmnProcessId, version: d.version, isNew: d.isNew }));
}
