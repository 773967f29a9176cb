// Helpers for the CMMN tests: a case document around a plan model body, a
// compiled case deployed on an in-memory engine with a fake clock, and the
// plan item states of a case by plan item id.
import { compileBpmn } from '../model/index.ts';
import { compileCmmn } from './compile-cmmn.ts';
import { InMemoryCaseEngine } from './runtime/in-memory-case-engine.ts';
import type { CaseInstance, PlanItemInstance } from './runtime/types.ts';

export const CMMN_NS = 'http://www.omg.org/spec/CMMN/20151109/MODEL';

/** A CMMN 1.1 document with one case `c` whose case plan model `plan` holds `body`. */
export function caseXml(body: string, planAttrs = '', outside = ''): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="${CMMN_NS}" xmlns:camunda="http://camunda.org/schema/1.0/cmmn" id="defs" targetNamespace="http://orca.test">
  <case id="c"><casePlanModel id="plan" ${planAttrs}>${body}</casePlanModel></case>${outside}
</definitions>`;
}

export interface CaseRun {
  engine: InMemoryCaseEngine;
  key: string;
  clock: { now: number };
  instance(): CaseInstance;
  /** Plan item states by plan item id, in creation order (a repeated item has several). */
  states(): Record<string, string[]>;
  /** The live (or last) instance of a plan item id. */
  item(id: string): PlanItemInstance;
  /** Completes the job of the live instance of plan item `id`. */
  complete(id: string, variables?: Record<string, unknown>): void;
}

/** Compiles `xml` (failing the test on problems), deploys it with `bpmn` processes, and starts its first case. */
export function runCase(xml: string, options: { variables?: Record<string, unknown>; bpmn?: string[]; stepBudget?: number; others?: string[] } = {}): CaseRun {
  const clock = { now: Date.UTC(2026, 0, 1) };
  const engine = new InMemoryCaseEngine({ now: () => clock.now, keepHistory: true, stepBudget: options.stepBudget });
  for (const text of options.bpmn ?? []) {
    const compiled = compileBpmn(text);
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
    for (const p of compiled.model.processes) engine.processes.deploy(p);
  }
  let first: string | undefined;
  for (const text of [xml, ...(options.others ?? [])]) {
    const compiled = compileCmmn(text);
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
    for (const model of compiled.model.cases) engine.deployCase(model);
    first ??= compiled.model.cases[0].id;
  }
  const key = engine.startCase(first!, options.variables ?? {});
  const instance = () => engine.caseInstance(key)!;
  const item = (id: string): PlanItemInstance => {
    const all = Object.values(instance().planItems).filter((p) => p.id === id);
    if (all.length === 0) throw new Error(`no instance of plan item '${id}'`);
    return all.find((p) => p.state === 'ACTIVE' || p.state === 'ENABLED' || p.state === 'AVAILABLE') ?? all[all.length - 1];
  };
  return {
    engine,
    key,
    clock,
    instance,
    item,
    states() {
      const out: Record<string, string[]> = {};
      for (const pi of Object.values(instance().planItems)) (out[pi.id] ??= []).push(pi.state);
      return out;
    },
    complete(id, variables) {
      const jobKey = item(id).jobKey;
      if (jobKey === undefined) throw new Error(`plan item '${id}' has no job (state ${item(id).state})`);
      engine.completeJob(jobKey, variables);
    },
  };
}
