// Cheap checks that run on the raw text before any XML parsing, so hostile or
// oversized input is turned away in time linear in its length: the byte limit,
// DOCTYPE / entity declarations (billion laughs) and a flow-element count
// taken with one regular-expression scan.
import { ACTIVITIES, EVENT_ELEMENTS, GATEWAYS } from './labels.ts';
import type { ModelProblem } from './types.ts';

export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
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
const DOCTYPE_PATTERN = /<!(?:DOCTYPE|ENTITY)/i;

function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return `${bytes.toLocaleString('en-US')} bytes (${mib >= 10 ? mib.toFixed(0) : mib.toFixed(1)} MiB)`;
}

/** UTF-8 size, skipping the full count when the UTF-16 length already decides it. */
function utf8Size(xml: string, maxBytes: number): { over: boolean; bytes: number } {
  // Every UTF-16 code unit encodes to at least one and at most three UTF-8 bytes.
  if (xml.length * 3 <= maxBytes) return { over: false, bytes: xml.length };
  const bytes = Buffer.byteLength(xml, 'utf8');
  return { over: bytes > maxBytes, bytes };
}

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
export function checkBeforeParsing(xml: unknown, limits: Limits): ModelProblem | undefined {
  if (typeof xml !== 'string') {
    return { message: `The model must be BPMN 2.0 XML text, but a value of type ${xml === null ? 'null' : typeof xml} was given.` };
  }
  const size = utf8Size(xml, limits.maxBytes);
  if (size.over) {
    return {
      message: `The model is ${formatBytes(size.bytes)}, more than the limit of ${formatBytes(limits.maxBytes)}; split it into smaller models.`,
    };
  }
  if (xml.trim() === '') return { message: 'The model is empty: expected BPMN 2.0 XML with a <definitions> root element.' };
  if (DOCTYPE_PATTERN.test(xml)) {
    return { message: 'DOCTYPE and entity declarations are not allowed in models; remove the <!DOCTYPE …> section.' };
  }
  const count = countFlowElements(xml, limits.maxElements);
  if (count > limits.maxElements) {
    return {
      message: `The model has more than ${limits.maxElements.toLocaleString('en-US')} flow elements and sequence flows, the most Orca accepts in one model; split it into smaller processes.`,
    };
  }
  return undefined;
}
