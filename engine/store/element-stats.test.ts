// The statistics deltas a batch carries (element-stats.ts), checked against
// the truth the instance documents and records hold: after any workload,
// the summed deltas per element equal the live element instances (stuck on
// an incident or not) and the ended ones, and the instance row equals the
// instances by state — however the records were split into batches.
import { describe, expect, it } from 'vitest';
import type { InMemoryEngine } from '../runtime/in-memory-engine.ts';
import { end, engineWith, flow, processXml, service, start } from '../runtime/testing.ts';
import type { ProcessInstance } from '../runtime/types.ts';
import type { Batch } from './batch-types.ts';
import { INSTANCE_ROW, statsDeltas, type StatsDelta } from './element-stats.ts';

/** start → fork → (a: "work-a", b: "work-b", retries 1) → join → end. */
const XML = processXml(
  'fork',
  start() +
    '<bpmn:parallelGateway id="split"/><bpmn:parallelGateway id="join"/>' +
    service('a', 'work-a') +
    service('b', 'work-b', '', '1') +
    end() +
    flow('f1', 'start', 'split') +
    flow('f2', 'split', 'a') +
    flow('f3', 'split', 'b') +
    flow('f4', 'a', 'join') +
    flow('f5', 'b', 'join') +
    flow('f6', 'join', 'end'),
);

type Counts = { active: number; incidents: number; completed: number; canceled: number };
const zero = (): Counts => ({ active: 0, incidents: 0, completed: 0, canceled: 0 });

/** What the documents and records say, counted the slow way. */
function truth(engine: InMemoryEngine, keys: string[]): Map<string, Counts> {
  const out = new Map<string, Counts>();
  const at = (id: string) => out.get(id) ?? out.set(id, zero()).get(id)!;
  for (const key of keys) {
    const doc = engine.instance(key)!;
    for (const ei of Object.values(doc.elements)) at(ei.elementId)[ei.incidentKey === undefined ? 'active' : 'incidents']++;
    for (const r of engine.history(key)) {
      if (r.type === 'ELEMENT_COMPLETED') at(r.elementId!).completed++;
      if (r.type === 'ELEMENT_TERMINATED') at(r.elementId!).canceled++;
    }
    if (doc.state === 'INCIDENT' && Object.values(doc.incidents).some((i) => i.elementInstanceKey === doc.key)) at(doc.bpmnProcessId).incidents++;
    const field = { ACTIVE: 'active', INCIDENT: 'incidents', COMPLETED: 'completed', TERMINATED: 'canceled' } as const;
    at(INSTANCE_ROW)[field[doc.state]]++;
  }
  for (const [id, c] of out) if (c.active === 0 && c.incidents === 0 && c.completed === 0 && c.canceled === 0) out.delete(id);
  return out;
}

/** A multi-instance subprocess (one scope per item, a task in each) between start and end. */
const MULTI = processXml(
  'fork',
  start() +
    '<bpmn:subProcess id="perItem"><bpmn:multiInstanceLoopCharacteristics><bpmn:extensionElements>' +
    '<zeebe:loopCharacteristics inputCollection="=items" inputElement="item"/></bpmn:extensionElements></bpmn:multiInstanceLoopCharacteristics>' +
    start('ss') +
    service('inner', 'inner', '', '1') +
    end('se') +
    flow('s1', 'ss', 'inner') +
    flow('s2', 'inner', 'se') +
    '</bpmn:subProcess>' +
    end() +
    flow('f1', 'start', 'perItem') +
    flow('f2', 'perItem', 'end'),
);

/** The instances' records cut into batches of `size` records (the final documents beside each), deltas summed. */
function summed(engine: InMemoryEngine, keys: string[], size: number): Map<string, Counts> {
  const docs: ProcessInstance[] = keys.map((k) => engine.instance(k)!);
  const history = keys.flatMap((k) => engine.history(k).map((record) => ({ account: 'acme', instanceKey: k, record })));
  const out = new Map<string, Counts>();
  for (let i = 0; i < history.length; i += size) {
    const batch: Batch = { partition: 1, epoch: 1, instances: docs.map((document) => ({ account: 'acme', document })), history: history.slice(i, i + size) };
    for (const d of statsDeltas(batch)) add(out, d);
  }
  for (const [id, c] of out) if (c.active === 0 && c.incidents === 0 && c.completed === 0 && c.canceled === 0) out.delete(id);
  return out;
}

function add(out: Map<string, Counts>, d: StatsDelta): void {
  expect(d).toMatchObject({ p: 1, a: 'acme', b: 'fork', v: 1 });
  const c = out.get(d.el) ?? out.set(d.el, zero()).get(d.el)!;
  c.active += d.da;
  c.incidents += d.di;
  c.completed += d.dc;
  c.canceled += d.dx;
}

function workload(): { engine: InMemoryEngine; keys: string[] } {
  const engine = engineWith(XML);
  const keys: string[] = [];
  // Completed.
  keys.push(engine.start('fork'));
  for (const job of engine.activate('work-a', 1)) engine.completeJob(job.key);
  for (const job of engine.activate('work-b', 1)) engine.completeJob(job.key);
  // Cancelled while both branches wait.
  keys.push(engine.start('fork'));
  engine.cancel(keys[1]);
  // INCIDENT on b while a is still active.
  keys.push(engine.start('fork'));
  engine.failJob(engine.activate('work-b', 1)[0].key, 0, 'declined');
  // INCIDENT, then set aside at a (a second incident, on the other branch) and cancelled: stuck elements terminate.
  keys.push(engine.start('fork'));
  engine.failJob(engine.activate('work-b', 1)[0].key, 0, 'declined');
  const a = Object.values(engine.instance(keys[3])!.elements).find((e) => e.elementId === 'a')!;
  engine.command(keys[3], { type: 'setAside', message: 'cannot store', elementInstanceKey: a.key });
  engine.cancel(keys[3]);
  // Set aside with no element to blame: a process-level incident, then cancelled.
  keys.push(engine.start('fork'));
  engine.command(keys[4], { type: 'setAside', message: 'cannot store' });
  // And one left so.
  keys.push(engine.start('fork'));
  engine.command(keys[5], { type: 'setAside', message: 'cannot store' });
  engine.cancel(keys[4]);
  // Still active.
  keys.push(engine.start('fork'));
  return { engine, keys };
}

describe('statsDeltas', () => {
  it('adds up to the live, stuck and ended element instances and the instances by state', () => {
    const { engine, keys } = workload();
    const expected = truth(engine, keys);
    expect(expected.get(INSTANCE_ROW)).toEqual({ active: 1, incidents: 2, completed: 1, canceled: 3 });
    expect(expected.get('b')?.incidents).toBe(1);
    expect(expected.get('fork')?.incidents).toBe(1);
    for (const size of [1, 3, 7, 1000]) expect(summed(engine, keys, size)).toEqual(expected);
  });

  it('holds for multi-instance subprocesses: bodies, inner instances and what is inside them', () => {
    const engine = engineWith(MULTI);
    const keys = [engine.start('fork', { items: [1, 2, 3] }), engine.start('fork', { items: [1, 2] }), engine.start('fork', { items: [1, 2] })];
    // The first completes; the second has one item done and one stuck on an incident; the third is cancelled half way.
    for (const job of engine.activate('inner', 3)) engine.completeJob(job.key);
    const [done, stuck] = engine.activate('inner', 2);
    engine.completeJob(done.key);
    engine.failJob(stuck.key, 0, 'declined');
    engine.completeJob(engine.activate('inner', 1)[0].key);
    engine.cancel(keys[2]);
    const expected = truth(engine, keys);
    expect(expected.get('inner')?.incidents).toBe(1);
    expect(expected.get('perItem')?.canceled).toBeGreaterThan(0);
    for (const size of [1, 4, 1000]) expect(summed(engine, keys, size)).toEqual(expected);
  });

  it('sends one row per element of a batch, and none for a batch without records', () => {
    const { engine, keys } = workload();
    const docs = keys.map((k) => ({ account: 'acme', document: engine.instance(k)! }));
    const history = keys.flatMap((k) => engine.history(k).map((record) => ({ account: 'acme', instanceKey: k, record })));
    const rows = statsDeltas({ partition: 1, epoch: 1, instances: docs, history });
    expect(new Set(rows.map((r) => r.el)).size).toBe(rows.length);
    expect(statsDeltas({ partition: 1, epoch: 1, instances: docs })).toEqual([]);
  });
});
