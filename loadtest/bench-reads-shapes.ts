// What `bench:reads` fills the store with, shaped by the real engine: a few
// models (a chain of service tasks, a user-task approval, a subprocess), and
// for each a handful of "shapes" — one sample instance driven by the engine
// core (InMemoryEngine) to COMPLETED, ACTIVE or INCIDENT at one of its
// tasks, or TERMINATED there — whose instance document and history records
// are exactly what a leader would commit (records encoded as
// history-records.ts stores them). Each sample becomes a text template with
// placeholders for its keys, times, version and variables, which the bulk
// fill (bench-reads-fill.ts) expands a million times in SQL; its statistics
// deltas come from the engine's own element-stats.ts.
import { compileBpmn } from '../engine/model/index.ts';
import { InMemoryEngine } from '../engine/runtime/in-memory-engine.ts';
import type { InstanceState } from '../engine/runtime/types.ts';
import { statsDeltas, type StatsDelta } from '../engine/store/element-stats.ts';
import { encodeRecord } from '../engine/store/history-records.ts';

const NS =
  'xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" targetNamespace="http://orca.dev/bench-reads"';
const task = (id: string, type: string) =>
  `<bpmn:serviceTask id="${id}"><bpmn:extensionElements><zeebe:taskDefinition type="${type}" retries="1"/></bpmn:extensionElements></bpmn:serviceTask>`;
const flowXml = (id: string, from: string, to: string) => `<bpmn:sequenceFlow id="${id}" sourceRef="${from}" targetRef="${to}"/>`;

function chain(id: string, tasks: string[], extra = ''): string {
  const ids = ['start', ...tasks, 'end'];
  const flows = ids.slice(1).map((to, i) => flowXml(`f${i + 1}`, ids[i], to));
  const body = `<bpmn:startEvent id="start"/>${tasks.map((t) => task(t, `${id}-${t}`)).join('')}<bpmn:endEvent id="end"/>${flows.join('')}`;
  return `<?xml version="1.0" encoding="UTF-8"?><bpmn:definitions ${NS} id="${id}-defs"><bpmn:process id="${id}" isExecutable="true">${body}${extra}</bpmn:process></bpmn:definitions>`;
}

/** The benchmark's models: `order` is deployed twice (versions 1 and 2), so version filters have something to tell apart. */
export const MODELS: { id: string; xml: string; versions: number; tasks: string[] }[] = [
  { id: 'order', xml: chain('order', ['reserve', 'charge', 'ship']), versions: 2, tasks: ['reserve', 'charge', 'ship'] },
  { id: 'approval', xml: chain('approval', ['check', 'review']), versions: 1, tasks: ['check', 'review'] },
  {
    id: 'onboarding',
    xml: chain('onboarding', ['verify', 'provision', 'welcome', 'follow-up']),
    versions: 1,
    tasks: ['verify', 'provision', 'welcome', 'follow-up'],
  },
];

/** Version 2 of a model: the same elements, another document (a documentation element). */
export function secondVersion(xml: string): string {
  return xml.replace('<bpmn:startEvent id="start"/>', '<bpmn:startEvent id="start"><bpmn:documentation>v2</bpmn:documentation></bpmn:startEvent>');
}

export interface Shape {
  id: number;
  bpmnProcessId: string;
  state: InstanceState;
  /** Share of all instances, in thousandths (they add up to 1000). */
  weight: number;
  /** The instance document with placeholders (see TOKEN_*). */
  document: string;
  /** The history row's records (a JSON array of encoded records) with placeholders. */
  records: string;
  /** How many key placeholders (@K00 …) the texts hold; @K00 is the instance key. */
  keys: number;
  incident?: { key: number; elementId: string; elementInstanceKey: number; type: string; message: string };
  /** The statistics deltas of one such instance, per element id ('' = the instance row). */
  deltas: { el: string; da: number; di: number; dc: number; dx: number }[];
}

/** Placeholders: key i is `@Kii`; the start and end times; the version; the root variables. */
export const TOKEN_START = '@START';
export const TOKEN_END = '@END';
export const TOKEN_VERSION = '@VERSION';
export const TOKEN_VARIABLES = '"@VARIABLES"';
export const keyToken = (i: number) => `@K${String(i).padStart(2, '0')}`;

const START_AT = 1_111_111_111_111;
const END_AT = 1_222_222_222_222;
const VARIABLES_MARK = '@VARIABLES';

/** State mix per model, in thousandths of that model's instances. */
const MIX: { state: InstanceState; share: number }[] = [
  { state: 'COMPLETED', share: 680 },
  { state: 'ACTIVE', share: 200 },
  { state: 'INCIDENT', share: 60 },
  { state: 'TERMINATED', share: 60 },
];

export function buildShapes(): Shape[] {
  const shapes: Shape[] = [];
  const perModel = Math.floor(1000 / MODELS.length);
  MODELS.forEach((model, m) => {
    const modelWeight = m === MODELS.length - 1 ? 1000 - perModel * (MODELS.length - 1) : perModel;
    const samples: { state: InstanceState; at: number; weight: number }[] = [];
    for (const { state, share } of MIX) {
      if (state === 'COMPLETED') samples.push({ state, at: model.tasks.length, weight: share });
      else model.tasks.forEach((_, at) => samples.push({ state, at, weight: share / model.tasks.length }));
    }
    // Whole thousandths per shape, the remainder on the first so the model's share is exact.
    const weights = samples.map((s) => Math.floor((s.weight * modelWeight) / 1000));
    weights[0] += modelWeight - weights.reduce((a, b) => a + b, 0);
    samples.forEach((s, i) => {
      if (weights[i] > 0) shapes.push(sample(shapes.length, model.id, model.xml, model.tasks, s.state, s.at, weights[i]));
    });
  });
  return shapes;
}

function sample(id: number, bpmnProcessId: string, xml: string, tasks: string[], state: InstanceState, at: number, weight: number): Shape {
  const compiled = compileBpmn(xml);
  if (!compiled.ok) throw new Error(`bench:reads model ${bpmnProcessId} rejected: ${compiled.problems.map((p) => p.message).join('; ')}`);
  let now = START_AT;
  const engine = new InMemoryEngine({ keepHistory: true, now: () => now });
  for (const process of compiled.model.processes) engine.deploy(process);
  const key = engine.start(bpmnProcessId, { [VARIABLES_MARK]: true });
  for (let i = 0; i < at; i++) {
    const [job] = engine.activate(`${bpmnProcessId}-${tasks[i]}`, 1);
    if (i === at - 1 && state === 'COMPLETED') now = END_AT;
    engine.completeJob(job.key);
  }
  if (state === 'INCIDENT') {
    const [job] = engine.activate(`${bpmnProcessId}-${tasks[at]}`, 1);
    engine.failJob(job.key, 0, 'Payment provider answered 502');
  } else if (state === 'TERMINATED') {
    now = END_AT;
    engine.cancel(key);
  }
  const document = engine.instance(key)!;
  if (document.state !== state) throw new Error(`bench:reads sample ${bpmnProcessId} ended ${document.state}, not ${state}`);
  const records = engine.history(key);
  const deltas = statsDeltas({
    partition: 0,
    epoch: 0,
    instances: [{ account: 'x', document }],
    history: records.map((record) => ({ account: 'x', instanceKey: key, record })),
  });

  // Every key in the texts, in order of first appearance, becomes a placeholder.
  const docText = JSON.stringify(document);
  const recText = JSON.stringify(records.map(encodeRecord));
  const keys = new Map<string, number>([[key, 0]]);
  for (const match of `${docText}${recText}`.matchAll(/"([0-9]{10,19})"/g)) if (!keys.has(match[1])) keys.set(match[1], keys.size);
  const templated = (text: string) => {
    let out = text.replace(/"([0-9]{10,19})"/g, (_, k: string) => `"${keyToken(keys.get(k)!)}"`);
    out = out.replaceAll(String(START_AT), TOKEN_START).replaceAll(String(END_AT), TOKEN_END);
    out = out.replaceAll('"version":1', `"version":${TOKEN_VERSION}`);
    return out.replaceAll(`{"${VARIABLES_MARK}":true}`, TOKEN_VARIABLES);
  };
  const incident = Object.values(document.incidents)[0];
  return {
    id,
    bpmnProcessId,
    state,
    weight,
    document: templated(docText),
    records: templated(recText),
    keys: keys.size,
    ...(incident === undefined
      ? {}
      : {
          incident: {
            key: keys.get(incident.key)!,
            elementId: incident.elementId,
            elementInstanceKey: keys.get(incident.elementInstanceKey)!,
            type: incident.type,
            message: incident.message,
          },
        }),
    deltas: deltas.map(({ el, da, di, dc, dx }: StatsDelta) => ({ el, da, di, dc, dx })),
  };
}
