// `orca simulate FILE`: starts one instance in-process and completes every
// job it meets (with the variables given per job type), then prints what
// happened as JSON. Exit 0 when the instance completed, 2 when it ended in
// an incident or stopped waiting on something no job can finish, 1 for bad
// input.
import { parseArgs } from 'node:util';
import { compileBpmn } from '../engine/model/index.ts';
import { InMemoryEngine } from '../engine/runtime/in-memory-engine.ts';
import type { Variables } from '../engine/runtime/types.ts';
import { readModelFile } from './read-model-file.ts';

/** Guards a model that creates jobs forever (a loop through a task). */
const MAX_JOBS = 10_000;

function parseObject(text: string, what: string): Variables {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`${what} is not valid JSON: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${what} must be a JSON object`);
  return value as Variables;
}

export interface SimulationReport {
  process: string;
  processInstanceKey: string;
  state: string;
  visited: string[];
  variables: Variables;
  incidents: { type: string; elementId: string; message: string }[];
  jobs: { type: string; elementId: string }[];
  waitingOn?: string[];
}

export async function runSimulate(argv: string[]): Promise<number> {
  let report: SimulationReport;
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { vars: { type: 'string' }, job: { type: 'string', multiple: true }, process: { type: 'string' } },
    });
    if (positionals.length !== 1) throw new Error('name exactly one model file');
    const read = await readModelFile(positionals[0]);
    if (!read.ok) throw new Error(read.error);
    const jobVariables = new Map<string, Variables>();
    for (const spec of values.job ?? []) {
      const eq = spec.indexOf('=');
      if (eq <= 0) throw new Error(`--job '${spec}' must look like TYPE=JSON`);
      jobVariables.set(spec.slice(0, eq), parseObject(spec.slice(eq + 1), `--job ${spec.slice(0, eq)}`));
    }
    const vars = values.vars === undefined ? {} : parseObject(values.vars, '--vars');
    report = simulate(read.xml, { processId: values.process, variables: vars, jobVariables });
  } catch (err) {
    process.stderr.write(`orca simulate: ${(err as Error).message}\n`);
    return 1;
  }
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  return report.state === 'COMPLETED' ? 0 : 2;
}

export function simulate(
  xml: string,
  options: { processId?: string; variables?: Variables; jobVariables?: Map<string, Variables> },
): SimulationReport {
  const compiled = compileBpmn(xml);
  if (!compiled.ok) {
    throw new Error(`the model is invalid:\n${compiled.problems.map((p) => `  ${p.elementId ? `[${p.elementId}] ` : ''}${p.message}`).join('\n')}`);
  }
  const processes = compiled.model.processes;
  const process = options.processId === undefined ? processes[0] : processes.find((p) => p.id === options.processId);
  if (process === undefined) throw new Error(`no executable process '${options.processId}'; the model has: ${processes.map((p) => p.id).join(', ')}`);
  let clock = Date.UTC(2026, 0, 1);
  const engine = new InMemoryEngine({ keepHistory: true, now: () => clock++ });
  for (const p of processes) engine.deploy(p);
  const key = engine.start(process.id, options.variables ?? {});
  const jobs: SimulationReport['jobs'] = [];
  for (;;) {
    const instance = engine.instance(key)!;
    const next = Object.values(instance.jobs).find((j) => j.state === 'ACTIVATABLE');
    if (next === undefined || instance.state === 'COMPLETED' || instance.state === 'TERMINATED') break;
    if (jobs.length >= MAX_JOBS) throw new Error(`stopped after ${MAX_JOBS} jobs: the model keeps creating work`);
    jobs.push({ type: next.type, elementId: next.elementId });
    engine.completeJob(next.key, options.jobVariables?.get(next.type) ?? {});
  }
  const instance = engine.instance(key)!;
  const waiting = Object.values(instance.elements).filter((e) => e.incidentKey === undefined && e.children === undefined);
  return {
    process: process.id,
    processInstanceKey: key,
    state: instance.state,
    visited: engine.history(key).filter((r) => r.type === 'ELEMENT_ACTIVATED').map((r) => r.elementId!),
    variables: instance.variables[key],
    incidents: Object.values(instance.incidents).map((i) => ({ type: i.type, elementId: i.elementId, message: i.message })),
    jobs,
    ...(waiting.length > 0 ? { waitingOn: waiting.map((e) => e.elementId) } : {}),
  };
}
