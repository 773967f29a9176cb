// The core benchmark's scenarios: one entry per model, each saying which BPMN
// file each engine runs, what the worker does per job type, and what every
// instance must have done when it ends (the benchmark checks its own result on
// both engines). A new scenario is one more entry in SCENARIOS.
import { readFileSync } from 'node:fs';
import { compileDmn } from '../engine/dmn/index.ts';
import type { InMemoryEngine } from '../engine/runtime/in-memory-engine.ts';
import type { Variables } from '../engine/runtime/types.ts';

/** What a worker does with one job: the variables it completes the job with. */
export type Worker = (variables: Variables) => Variables | undefined;

export interface Scenario {
  name: string;
  summary: string;
  /** The process id in both model files. */
  processId: string;
  /** Orca's model (Camunda 8 dialect), a file name under loadtest/models. */
  orcaModel: string;
  /** bpmn-engine's copy: identical but for the bits whose dialects differ (conditions). */
  bpmnEngineModel: string;
  /** Variables every instance starts with. */
  startVariables: Variables;
  /**
   * Job type → worker. Orca's driver activates and completes jobs with these;
   * bpmn-engine calls the same functions as the service tasks' implementations.
   */
  workers: Record<string, Worker>;
  /** Jobs (service calls) one instance makes, by type; types not listed must see none. */
  jobsPerInstance: Record<string, number>;
  /** Element ids every instance completes, each once (checked on an untimed pass with history). */
  path: string[];
  /** Functions bpmn-engine expressions call besides the workers (conditions, a decision table …). */
  bpmnEngineServices?: Record<string, (...args: never[]) => unknown>;
  /** Anything else Orca must have deployed before the process runs (a DMN, a called process …). */
  deployOrca?(engine: InMemoryEngine): void;
  /** Decisions one instance evaluates; when set the report also gives decisions/s. */
  decisionsPerInstance?: number;
}

/**
 * loadtest/models/discount-20.dmn as JavaScript, for bpmn-engine (which has no
 * DMN): rule i matches amount in [i*100, (i+1)*100); even rules only for gold.
 */
function discountTable(amount: number, customer: string): number | null {
  for (let i = 0; i < 20; i++) {
    if (amount >= i * 100 && amount < (i + 1) * 100 && (i % 2 === 1 || customer === 'gold'))
      return Math.round((i * 0.01 + (i % 2 === 0 ? 0.05 : 0)) * 100) / 100;
  }
  return null;
}

/** The scenario whose figure is the headline (the goal is ratio ≥ 100): its JSON line prints last. */
export const HEADLINE_SCENARIO = 'one-task';

export const SCENARIOS: Scenario[] = [
  {
    name: 'one-task',
    summary: 'start → service task → end',
    processId: 'one-task',
    orcaModel: 'one-task.bpmn',
    bpmnEngineModel: 'one-task.bpmn',
    startVariables: { orderId: 'o-1' },
    workers: { work: () => ({ done: true }) },
    jobsPerInstance: { work: 1 },
    path: ['start', 'work', 'end'],
  },
  {
    name: 'order-flow',
    summary: 'service task, XOR (FEEL condition + default), parallel fork of two service tasks, join, end',
    processId: 'order-flow',
    orcaModel: 'order-flow.bpmn',
    bpmnEngineModel: 'order-flow.bpmn-engine.bpmn',
    // amount > 100, so every instance takes the conditional flow into the fork.
    startVariables: { orderId: 'o-1', amount: 250 },
    workers: {
      validate: () => ({ valid: true }),
      reserve: () => ({ reserved: true }),
      charge: () => ({ charged: true }),
      notify: () => ({ notified: true }),
    },
    jobsPerInstance: { validate: 1, reserve: 1, charge: 1 },
    path: ['start', 'validate', 'amount-check', 'fork', 'reserve', 'charge', 'join', 'accepted', 'end-shipped'],
    // The bpmn-engine copy's condition: the same test as Orca's `=amount > 100`.
    bpmnEngineServices: { largeOrder: (amount: number) => amount > 100 },
  },
  {
    name: 'decision',
    summary: 'business-rule task evaluating a 20-rule FIRST decision table, end',
    processId: 'decision',
    orcaModel: 'decision.bpmn',
    bpmnEngineModel: 'decision.bpmn',
    // Near the end of the table, so FIRST scans 19 rules before its match.
    startVariables: { amount: 1950, customer: 'silver' },
    workers: {},
    jobsPerInstance: {},
    path: ['start', 'decide', 'end'],
    decisionsPerInstance: 1,
    bpmnEngineServices: {
      decide: ((scope: { environment: { variables: Variables } }, callback: (err: null, result: Variables) => void) => {
        const v = scope.environment.variables;
        callback(null, { discount: discountTable(v.amount as number, v.customer as string) });
      }) as (...args: never[]) => unknown,
    },
    deployOrca(engine) {
      const compiled = compileDmn(readModel('discount-20.dmn'));
      if (!compiled.ok) throw new Error(`discount-20.dmn: ${compiled.problems.map((p) => p.message).join('; ')}`);
      engine.deployDecisions(compiled.model);
    },
  },
];

const modelsDir = new URL('./models/', import.meta.url);

export function readModel(file: string): string {
  return readFileSync(new URL(file, modelsDir), 'utf8');
}

export function findScenario(name: string): Scenario {
  const scenario = SCENARIOS.find((s) => s.name === name);
  if (scenario === undefined) {
    throw new Error(`Unknown scenario '${name}'; known: ${SCENARIOS.map((s) => s.name).join(', ')}.`);
  }
  return scenario;
}
