// Ties the model's support table to the runtime's processors: the compiler
// lets through exactly the element kinds the runtime has a processor for, so
// flipping an entry in engine/model/support.ts without adding a processor (or
// the other way round) fails here rather than at run time.
import { describe, expect, it } from 'vitest';
import { ACTIVITIES, EVENT_ELEMENTS, GATEWAYS } from '../model/labels.ts';
import { type SupportQuery, unsupportedMessage } from '../model/support.ts';
import type { FlowNode } from '../model/types.ts';
import { PROCESSORS, processorFor } from './processors.ts';

const EVENT_KINDS = [
  undefined,
  'none',
  'message',
  'timer',
  'error',
  'escalation',
  'signal',
  'terminate',
  'link',
  'compensate',
  'conditional',
  'cancel',
  'multiple',
];
const SCOPES: SupportQuery['scope'][] = ['process', 'subProcess', 'eventSubProcess'];
const FLAGS = [false, true];

/** Every form of `kind` the support table can be asked about, markers (multi-instance, loops) aside. */
function* queries(kind: string): Generator<SupportQuery> {
  for (const eventKind of EVENT_KINDS)
    for (const scope of SCOPES)
      for (const nonInterrupting of FLAGS)
        for (const eventSubProcess of FLAGS)
          for (const calledDecision of FLAGS) yield { kind, eventKind, scope, nonInterrupting, eventSubProcess, calledDecision };
}

function executableInSomeForm(kind: string): boolean {
  for (const query of queries(kind)) if (unsupportedMessage(query, 'x') === undefined) return true;
  return false;
}

describe('the processor registry', () => {
  const flowNodeKinds = [...EVENT_ELEMENTS, ...ACTIVITIES, ...GATEWAYS];

  it('has a processor for exactly the element kinds the support table lets through', () => {
    const supported = flowNodeKinds.filter(executableInSomeForm).sort();
    expect(Object.keys(PROCESSORS).sort()).toEqual(supported);
  });

  it('knows each of its kinds as a BPMN flow node', () => {
    for (const kind of Object.keys(PROCESSORS)) expect(flowNodeKinds, kind).toContain(kind);
  });

  it('refuses a kind it has no processor for, naming the element', () => {
    const node = { id: 'cg', type: 'complexGateway' } as unknown as FlowNode;
    expect(() => processorFor(node)).toThrow("no runtime processor for complexGateway 'cg'");
  });
});
