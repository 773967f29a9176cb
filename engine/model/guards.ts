// The model's own checks on the raw text, run by the XML reader before it
// parses (engine/xml/read-xml.ts does size and DOCTYPE / entity declarations
// for BPMN and DMN alike), so hostile or oversized input is turned away in
// time linear in its length: an empty document, and a flow-element count
// taken with one regular-expression scan.
import { LIMITS } from '../limits.ts';
import { ACTIVITIES, EVENT_ELEMENTS, GATEWAYS } from './labels.ts';
import type { ModelProblem } from './types.ts';

export const DEFAULT_MAX_BYTES = LIMITS.maxModelBytes;
export const DEFAULT_MAX_ELEMENTS = 20_000;

export interface Limits {
  maxBytes: number;
  maxElements: number;
}

/**
 * Local names of the BPMN elements that count towards `maxElements`: flow
 * nodes and sequence flows. The pre-parse scan ignores namespaces (it runs on
 * text), so it can only over-count, never let a large model through.
 */
export const COUNTED_ELEMENTS: readonly string[] = ['sequenceFlow', ...EVENT_ELEMENTS, ...ACTIVITIES, ...GATEWAYS];

const COUNT_PATTERN = new RegExp(`<(?:[A-Za-z_][\\w.-]*:)?(?:${COUNTED_ELEMENTS.join('|')})(?=[\\s/>])`, 'g');

/** Counts flow elements and sequence flows, stopping as soon as the limit is passed. */
export function countFlowElements(xml: string, stopAfter: number): number {
  COUNT_PATTERN.lastIndex = 0;
  let count = 0;
  while (COUNT_PATTERN.exec(xml) !== null) {
    count++;
    if (count > stopAfter) break;
  }
  COUNT_PATTERN.lastIndex = 0;
  return count;
}

/** Returns the problem that stops `xml` before parsing, or undefined when it may be parsed. */
export function checkBeforeParsing(xml: string, limits: Limits): ModelProblem | undefined {
  if (xml.trim() === '') return { message: 'The model is empty: expected BPMN 2.0 XML with a <definitions> root element.' };
  const count = countFlowElements(xml, limits.maxElements);
  if (count > limits.maxElements) {
    return {
      message: `The model has more than ${limits.maxElements.toLocaleString('en-US')} flow elements and sequence flows, the most Orca accepts in one model; split it into smaller processes.`,
    };
  }
  return undefined;
}
