// `orca simulate FILE [MORE...]`: deploys every file (the first is the
// model to run: BPMN, or a CMMN case, which simulate-case.ts drives; more
// BPMN files supply called processes, DMN files decisions),
// starts one instance of the first file's process in-process and drives it
// to its end: it completes every job it meets — in child instances too —
// with the variables given per job type (or, with `--error TYPE=CODE`, has
// it throw that BPMN error, the worker-error extension), and when only
// timers are left it moves a simulated clock to the next one; with
// `--inline-scripts`, zeebe:script expressions run inline as a deploy with
// that option (extension) runs them. With `--message NAME[=JSON]`
// (extension) it publishes NAME, with those variables, whenever the
// instance opens a subscription for it, with the correlation key that
// subscription expects — before completing any job, so message boundary
// events and event subprocesses get their turn; a process with only a
// message start is started by publishing its message. `--signal
// NAME[=JSON]` (extension) does the same for signals: it broadcasts NAME
// whenever the instance waits for it (a catch, a boundary, an event
// subprocess start, an event-based gateway branch), once per wait, and
// starts a process with only a signal start by broadcasting it. The job of
// an ad-hoc subprocess (the AI agent pattern) is completed with the job
// results `--job-result TYPE=JSON` gives for its type (extension), one per
// job in order, and once they are used up with its completion condition
// fulfilled. It prints what happened as JSON.
// Exit 0 when the instance completed, 2 when it ended in an incident or
// stopped waiting on something nothing will finish, 1 for bad input.
import { parseArgs } from 'node:util';
import { compileDmn } from '../engine/dmn/index.ts';
import { compileBpmn, withInlineScripts } from '../engine/model/index.ts';
import type { ProcessModel } from '../engine/model/types.ts';
import { InMemoryEngine } from '../engine/runtime/in-memory-engine.ts';
import { messageStartsOf, signalStartsOf } from '../engine/runtime/message-starts.ts';
import type { AdHocJobResult, ProcessInstance, Variables } from '../engine/runtime/types.ts';
import { isCmmn, isDmn } from './model-kind.ts';
import { simulateCase, type CaseSimulationReport } from './simulate-case.ts';
import { readModelFile } from './read-model-file.ts';

/** Guards a model that makes work forever (a loop through a task or a timer cycle). */
const MAX_STEPS = 10_000;

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
  incidents: { type: string; elementId: string; message: string; processInstanceKey: string }[];
  /** `errorCode`: the job threw this BPMN error (`--error`) instead of completing. */
  jobs: { type: string; elementId: string; errorCode?: string }[];
  /** Messages published by --message (extension), in order, with the correlation key each was published with. */
  messages: { name: string; correlationKey: string }[];
  /** Signals broadcast by --signal (extension), in order. */
  signals: string[];
  timersFired: number;
  waitingOn?: string[];
}

export async function runSimulate(argv: string[]): Promise<number> {
  let report: SimulationReport | CaseSimulationReport;
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        vars: { type: 'string' },
        job: { type: 'string', multiple: true },
        message: { type: 'string', multiple: true },
        signal: { type: 'string', multiple: true },
        error: { type: 'string', multiple: true },
        'job-result': { type: 'string', multiple: true },
        process: { type: 'string' },
        occur: { type: 'string', multiple: true },
        start: { type: 'string', multiple: true },
        'inline-scripts': { type: 'boolean' },
      },
    });
    if (positionals.length === 0) throw new Error('name at least one model file');
    const files: string[] = [];
    for (const path of positionals) {
      const read = await readModelFile(path);
      if (!read.ok) throw new Error(read.error);
      files.push(read.xml);
    }
    const jobVariables = new Map<string, Variables>();
    for (const spec of values.job ?? []) {
      const eq = spec.indexOf('=');
      if (eq <= 0) throw new Error(`--job '${spec}' must look like TYPE=JSON`);
      jobVariables.set(spec.slice(0, eq), parseObject(spec.slice(eq + 1), `--job ${spec.slice(0, eq)}`));
    }
    const jobErrors = new Map<string, string>();
    for (const spec of values.error ?? []) {
      const eq = spec.indexOf('=');
      if (eq <= 0 || eq === spec.length - 1) throw new Error(`--error '${spec}' must look like TYPE=CODE`);
      const type = spec.slice(0, eq);
      if (jobVariables.has(type)) throw new Error(`--error ${type}: the job type is also given to --job; a job either completes or throws`);
      jobErrors.set(type, spec.slice(eq + 1));
    }
    const jobResults = new Map<string, AdHocJobResult[]>();
    for (const spec of values['job-result'] ?? []) {
      const eq = spec.indexOf('=');
      if (eq <= 0) throw new Error(`--job-result '${spec}' must look like TYPE=JSON`);
      const type = spec.slice(0, eq);
      const result = { type: 'adHocSubProcess', ...parseObject(spec.slice(eq + 1), `--job-result ${type}`) } as AdHocJobResult;
      jobResults.set(type, [...(jobResults.get(type) ?? []), result]);
    }
    const messages = namedVariables('--message', values.message);
    const signals = namedVariables('--signal', values.signal);
    const vars = values.vars === undefined ? {} : parseObject(values.vars, '--vars');
    if (isCmmn(files[0])) {
      if (values.process !== undefined) throw new Error('--process applies to BPMN models; the first file is a CMMN case');
      report = simulateCase(files, { variables: vars, jobVariables, occur: values.occur, start: values.start });
    } else {
      if (values.occur !== undefined || values.start !== undefined) throw new Error('--occur and --start apply to CMMN cases; the first file is not one');
      const inlineScripts = values['inline-scripts'];
      report = simulate(files, { processId: values.process, variables: vars, jobVariables, messages, signals, jobErrors, jobResults, inlineScripts });
    }
  } catch (err) {
    process.stderr.write(`orca simulate: ${(err as Error).message}\n`);
    return 1;
  }
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  return report.state === 'COMPLETED' ? 0 : 2;
}

/** `--message` and `--signal` values, NAME or NAME=JSON, by name. */
function namedVariables(flag: string, specs: string[] | undefined): Map<string, Variables> {
  const out = new Map<string, Variables>();
  for (const spec of specs ?? []) {
    const eq = spec.indexOf('=');
    if (eq === 0 || spec === '') throw new Error(`${flag} '${spec}' must look like NAME or NAME=JSON`);
    if (eq < 0) out.set(spec, {});
    else out.set(spec.slice(0, eq), parseObject(spec.slice(eq + 1), `${flag} ${spec.slice(0, eq)}`));
  }
  return out;
}

function problemsText(problems: { elementId?: string; message: string }[]): string {
  return problems.map((p) => `  ${p.elementId ? `[${p.elementId}] ` : ''}${p.message}`).join('\n');
}

/** Deploys `files` (BPMN and DMN XML; the first is the model to run) and drives one instance to its end. */
export function simulate(
  files: string | string[],
  options: {
    processId?: string;
    variables?: Variables;
    jobVariables?: Map<string, Variables>;
    messages?: Map<string, Variables>;
    signals?: Map<string, Variables>;
    jobErrors?: Map<string, string>;
    /** Results for the jobs of ad-hoc subprocesses, by job type, used in order. */
    jobResults?: Map<string, AdHocJobResult[]>;
    inlineScripts?: boolean;
  },
): SimulationReport {
  const xmls = Array.isArray(files) ? files : [files];
  let clock = Date.UTC(2026, 0, 1);
  const engine = new InMemoryEngine({ keepHistory: true, now: () => clock });
  let main: ProcessModel[] | undefined;
  const adHocIds = new Set<string>();
  const jobResults = new Map([...(options.jobResults ?? new Map<string, AdHocJobResult[]>())].map(([type, list]) => [type, [...list]]));
  xmls.forEach((xml, i) => {
    if (isDmn(xml)) {
      if (i === 0) throw new Error('the first file must be a BPMN model (DMN files come after it)');
      const dmn = compileDmn(xml);
      if (!dmn.ok) throw new Error(`file ${i + 1} (DMN) is invalid:\n${problemsText(dmn.problems)}`);
      engine.deployDecisions(dmn.model);
      return;
    }
    const compiled = compileBpmn(xml);
    if (!compiled.ok) throw new Error(`${i === 0 ? 'the model' : `file ${i + 1}`} is invalid:\n${problemsText(compiled.problems)}`);
    // --inline-scripts: deployed as with the deploy option (extension), zeebe:script expressions run inline.
    const model = options.inlineScripts ? withInlineScripts(compiled.model) : compiled.model;
    for (const p of model.processes) engine.deploy(p);
    for (const p of model.processes) for (const node of Object.values(p.elements)) if (node.type === 'adHocSubProcess') adHocIds.add(node.id);
    if (i === 0) main = model.processes;
  });
  const processes = main!;
  const process =
    options.processId === undefined
      ? (processes.find((p) => p.noneStartEvent !== undefined) ?? processes[0])
      : processes.find((p) => p.id === options.processId);
  if (process === undefined) throw new Error(`no executable process '${options.processId}'; the model has: ${processes.map((p) => p.id).join(', ')}`);
  const messages = options.messages ?? new Map<string, Variables>();
  const signals = options.signals ?? new Map<string, Variables>();
  const published: SimulationReport['messages'] = [];
  const broadcast: string[] = [];
  const key = startInstance(engine, process, options.variables ?? {}, { messages, signals, published, broadcast });
  const jobs: SimulationReport['jobs'] = [];
  /** Subscriptions a message was published or a signal broadcast for already: each gets one. */
  const answered = new Set<string>();
  let timersFired = 0;
  for (let step = 0; ; step++) {
    if (step >= MAX_STEPS) throw new Error(`stopped after ${MAX_STEPS} steps: the model keeps making work`);
    const instance = engine.instance(key)!;
    if (instance.state === 'COMPLETED' || instance.state === 'TERMINATED') break;
    const subscription = family(engine, key)
      .flatMap((i) => Object.values(i.subscriptions ?? {}))
      .find((s) => (s.signal === true ? signals : messages).has(s.name) && !answered.has(s.key));
    if (subscription?.signal === true) {
      answered.add(subscription.key);
      broadcast.push(subscription.name);
      engine.broadcastSignal(subscription.name, signals.get(subscription.name));
      continue;
    }
    if (subscription !== undefined) {
      answered.add(subscription.key);
      published.push({ name: subscription.name, correlationKey: subscription.correlationKey });
      engine.publishMessage({ name: subscription.name, correlationKey: subscription.correlationKey, variables: messages.get(subscription.name) });
      continue;
    }
    const next = family(engine, key)
      .flatMap((i) => Object.values(i.jobs))
      .find((j) => j.state === 'ACTIVATABLE');
    if (next !== undefined) {
      const errorCode = options.jobErrors?.get(next.type);
      if (errorCode !== undefined) {
        jobs.push({ type: next.type, elementId: next.elementId, errorCode });
        engine.throwJobError(next.key, errorCode, `orca simulate --error ${next.type}=${errorCode}`);
        continue;
      }
      jobs.push({ type: next.type, elementId: next.elementId });
      // The job of an ad-hoc subprocess: the next --job-result for its type, else done.
      const result = adHocIds.has(next.elementId)
        ? (jobResults.get(next.type)?.shift() ?? { type: 'adHocSubProcess' as const, isCompletionConditionFulfilled: true })
        : undefined;
      engine.completeJob(next.key, options.jobVariables?.get(next.type) ?? {}, result);
      continue;
    }
    const due = engine.nextTimerDue();
    if (due === undefined) break;
    clock = Math.max(clock, due);
    timersFired += engine.fireDueTimers();
  }
  const instance = engine.instance(key)!;
  const members = family(engine, key);
  const waiting = members
    .flatMap((i) => Object.values(i.elements))
    .filter((e) => e.incidentKey === undefined && e.children === undefined && e.childInstanceKey === undefined);
  return {
    process: process.id,
    processInstanceKey: key,
    state: instance.state,
    visited: engine
      .history(key)
      .filter((r) => r.type === 'ELEMENT_ACTIVATED')
      .map((r) => r.elementId!),
    variables: instance.variables[key],
    incidents: members.flatMap((i) =>
      Object.values(i.incidents).map((x) => ({ type: x.type, elementId: x.elementId, message: x.message, processInstanceKey: i.key })),
    ),
    jobs,
    messages: published,
    signals: broadcast,
    timersFired,
    ...(waiting.length > 0 ? { waitingOn: waiting.map((e) => e.elementId) } : {}),
  };
}

/**
 * Starts the instance: by its none start event, else by publishing the
 * message of a message start event --message names, else by broadcasting
 * the signal of a signal start event --signal names.
 */
function startInstance(
  engine: InMemoryEngine,
  process: ProcessModel,
  variables: Variables,
  by: { messages: Map<string, Variables>; signals: Map<string, Variables>; published: SimulationReport['messages']; broadcast: string[] },
): string {
  const { messages, signals, published } = by;
  if (process.noneStartEvent !== undefined) return engine.start(process.id, variables);
  const start = messageStartsOf(process).find((s) => messages.has(s.name));
  const signal = start === undefined ? signalStartsOf(process).find((s) => signals.has(s.name)) : undefined;
  if (signal !== undefined) {
    by.broadcast.push(signal.name);
    const started = engine.broadcastSignal(signal.name, { ...variables, ...signals.get(signal.name) }).startedInstances;
    const key = started.find((k) => engine.instance(k)?.bpmnProcessId === process.id);
    if (key === undefined) throw new Error(`broadcasting '${signal.name}' started no instance of '${process.id}'`);
    return key;
  }
  if (start === undefined) return engine.start(process.id, variables);
  published.push({ name: start.name, correlationKey: '' });
  const { startedInstances } = engine.publishMessage({ name: start.name, variables: { ...variables, ...messages.get(start.name) } });
  const key = startedInstances.find((k) => engine.instance(k)?.bpmnProcessId === process.id);
  if (key === undefined) throw new Error(`publishing '${start.name}' started no instance of '${process.id}'`);
  return key;
}

/** The instance and every instance its call activities started, depth first. */
function family(engine: InMemoryEngine, key: string): ProcessInstance[] {
  const root = engine.instance(key);
  if (root === undefined) return [];
  return [root, ...engine.children(key).flatMap((child) => family(engine, child.key))];
}
