// `orca simulate case.cmmn [process.bpmn | decisions.dmn …]`: deploys the
// case and the processes its process tasks start, starts one case instance
// in-process and drives it: it triggers the user event listeners named by
// --occur and starts the ENABLED items named by --start as soon as each can
// be, completes every job it meets (the case's and its child processes',
// with the variables given per job type) and moves a simulated clock to the
// next timer when nothing else is left. It prints the case's state and its
// plan items as JSON. Exit 0 when the case completed, 2 when it ended
// otherwise or waits on something nothing will finish, 1 for bad input.
import { compileCmmn } from '../engine/cmmn/index.ts';
import { InMemoryCaseEngine } from '../engine/cmmn/runtime/in-memory-case-engine.ts';
import type { CaseInstance } from '../engine/cmmn/runtime/types.ts';
import type { CaseModel } from '../engine/cmmn/types.ts';
import { compileDmn } from '../engine/dmn/index.ts';
import { compileBpmn } from '../engine/model/index.ts';
import type { Variables } from '../engine/runtime/types.ts';
import { isCmmn, isDmn } from './model-kind.ts';

/** Guards a case that makes work forever (a repeating task, a loop through a child process). */
const MAX_STEPS = 10_000;

export interface CaseSimulationReport {
  case: string;
  caseInstanceKey: string;
  state: string;
  planItems: { id: string; definitionId: string; type: string; state: string }[];
  variables: Variables;
  incidents: { type: string; elementId: string; message: string; instanceKey: string }[];
  jobs: { type: string; elementId: string }[];
  /** --occur and --start actions that never found their plan item ready. */
  notDone?: string[];
  warnings?: string[];
  timersFired: number;
}

export interface CaseSimulationOptions {
  variables?: Variables;
  jobVariables?: Map<string, Variables>;
  /** User event listeners to trigger (plan item ids), in order. */
  occur?: string[];
  /** ENABLED plan items to start by hand (plan item ids), in order. */
  start?: string[];
}

export function simulateCase(xmls: string[], options: CaseSimulationOptions): CaseSimulationReport {
  let clock = Date.UTC(2026, 0, 1);
  const engine = new InMemoryCaseEngine({ keepHistory: true, now: () => clock });
  let main: CaseModel | undefined;
  const warnings: string[] = [];
  xmls.forEach((xml, i) => {
    const which = i === 0 ? 'the case model' : `file ${i + 1}`;
    if (isCmmn(xml)) {
      const compiled = compileCmmn(xml);
      if (!compiled.ok) throw new Error(`${which} is invalid:\n${problemsText(compiled.problems)}`);
      for (const model of compiled.model.cases) engine.deployCase(model);
      for (const w of compiled.model.warnings) warnings.push(`${w.elementId ? `[${w.elementId}] ` : ''}${w.code}: ${w.message}`);
      main ??= compiled.model.cases[0];
    } else if (isDmn(xml)) {
      const dmn = compileDmn(xml);
      if (!dmn.ok) throw new Error(`${which} (DMN) is invalid:\n${problemsText(dmn.problems)}`);
      engine.processes.deployDecisions(dmn.model);
    } else {
      const compiled = compileBpmn(xml);
      if (!compiled.ok) throw new Error(`${which} is invalid:\n${problemsText(compiled.problems)}`);
      for (const p of compiled.model.processes) engine.processes.deploy(p);
    }
  });
  const model = main!;
  const key = engine.startCase(model.id, options.variables ?? {});
  const actions = [
    ...(options.occur ?? []).map((id) => ({ kind: 'occur' as const, id })),
    ...(options.start ?? []).map((id) => ({ kind: 'start' as const, id })),
  ];
  for (const action of actions) {
    if (!(action.id in model.planItems)) throw new Error(`--${action.kind} ${action.id}: case '${model.id}' has no plan item '${action.id}'`);
    const type = model.planItems[action.id].type;
    if (action.kind === 'occur' && type !== 'userEventListener')
      throw new Error(`--occur ${action.id}: '${action.id}' is a ${type}; only a user event listener occurs when told`);
    if (action.kind === 'start' && (type === 'milestone' || type.endsWith('EventListener')))
      throw new Error(`--start ${action.id}: '${action.id}' is a ${type}, which is never started by hand`);
  }
  const jobs: CaseSimulationReport['jobs'] = [];
  let timersFired = 0;
  for (let step = 0; ; step++) {
    if (step >= MAX_STEPS) throw new Error(`stopped after ${MAX_STEPS} steps: the case keeps making work`);
    const instance = engine.caseInstance(key)!;
    if (instance.state !== 'ACTIVE') break;
    const cases = family(engine, key);
    // Actions first, each once, as soon as its plan item is ready for it.
    const ready = actions.findIndex((a) => cases.some((c) => readyFor(c, a.id, a.kind === 'occur' ? 'AVAILABLE' : 'ENABLED') !== undefined));
    if (ready !== -1) {
      const [action] = actions.splice(ready, 1);
      const owner = cases.find((c) => readyFor(c, action.id, action.kind === 'occur' ? 'AVAILABLE' : 'ENABLED') !== undefined)!;
      const planItemKey = readyFor(owner, action.id, action.kind === 'occur' ? 'AVAILABLE' : 'ENABLED')!;
      engine.command(owner.key, action.kind === 'occur' ? { type: 'occur', planItemKey } : { type: 'startPlanItem', planItemKey });
      continue;
    }
    const caseJob = cases.flatMap((c) => Object.values(c.jobs)).find((j) => j.state === 'ACTIVATABLE');
    const processJob = caseJob === undefined ? processJobs(engine, cases) : undefined;
    const job = caseJob ?? processJob;
    if (job !== undefined) {
      jobs.push({ type: job.type, elementId: job.elementId });
      engine.completeJob(job.key, options.jobVariables?.get(job.type) ?? {});
      continue;
    }
    const due = engine.nextTimerDue();
    if (due === undefined) break;
    clock = Math.max(clock, due);
    timersFired += engine.fireDueTimers();
  }
  const instance = engine.caseInstance(key)!;
  const members = family(engine, key);
  const report: CaseSimulationReport = {
    case: model.id,
    caseInstanceKey: key,
    state: instance.state,
    planItems: Object.values(instance.planItems).map((p) => ({ id: p.id, definitionId: p.definitionId, type: p.type, state: p.state })),
    variables: instance.variables,
    incidents: [
      ...members.flatMap((c) => Object.values(c.incidents).map((x) => ({ type: x.type, elementId: x.elementId, message: x.message, instanceKey: c.key }))),
      ...members.flatMap((c) =>
        processFamily(engine, c).flatMap((p) =>
          Object.values(p.incidents).map((x) => ({ type: x.type, elementId: x.elementId, message: x.message, instanceKey: p.key })),
        ),
      ),
    ],
    jobs,
    timersFired,
  };
  if (actions.length > 0) report.notDone = actions.map((a) => `--${a.kind} ${a.id}`);
  if (warnings.length > 0) report.warnings = warnings;
  return report;
}

function problemsText(problems: { elementId?: string; message: string }[]): string {
  return problems.map((p) => `  ${p.elementId ? `[${p.elementId}] ` : ''}${p.message}`).join('\n');
}

function readyFor(instance: CaseInstance, id: string, state: 'AVAILABLE' | 'ENABLED'): string | undefined {
  return Object.values(instance.planItems).find((p) => p.id === id && p.state === state)?.key;
}

/** The case and every case its case tasks started, depth first. */
function family(engine: InMemoryCaseEngine, key: string): CaseInstance[] {
  const root = engine.caseInstance(key);
  if (root === undefined) return [];
  return [root, ...engine.childCases(key).flatMap((child) => family(engine, child.key))];
}

/** The process instances a case's process tasks started, and theirs. */
function processFamily(engine: InMemoryCaseEngine, instance: CaseInstance) {
  const walk = (key: string): ReturnType<InMemoryCaseEngine['processes']['children']> =>
    engine.processes.children(key).flatMap((child) => [child, ...walk(child.key)]);
  return walk(instance.key);
}

function processJobs(engine: InMemoryCaseEngine, cases: CaseInstance[]) {
  return cases
    .flatMap((c) => processFamily(engine, c))
    .filter((p) => p.state === 'ACTIVE')
    .flatMap((p) => Object.values(p.jobs))
    .find((j) => j.state === 'ACTIVATABLE');
}
