// BPMN documents through the shared XML reader (engine/xml/read-xml.ts): the
// namespaces BPMN models use, the reader's problems worded for modellers, and
// the lookups the compiler makes on the element tree. The model's own text
// check (guards.ts: empty documents, too many flow elements) runs inside the
// reader, after its size and declaration checks and before parsing.
import { readXml, type XmlProblem } from '../xml/read-xml.ts';
import type { XmlElement } from '../xml/element.ts';
import { checkBeforeParsing, DEFAULT_MAX_BYTES, DEFAULT_MAX_ELEMENTS, type Limits } from './guards.ts';
import type { ModelProblem } from './types.ts';

export type { XmlElement } from '../xml/element.ts';

export const BPMN_NS = 'http://www.omg.org/spec/BPMN/20100524/MODEL';
export const BPMNDI_NS = 'http://www.omg.org/spec/BPMN/20100524/DI';
export const ZEEBE_NS = 'http://camunda.org/schema/zeebe/1.0';

export type XmlResult = { ok: true; root: XmlElement } | { ok: false; problems: ModelProblem[] };

/**
 * Prefixes that models use without declaring them still have to be read so
 * that the compiler can say what is missing; only `zeebe:` is worth it (its
 * declaration is a SPEC.md requirement with its own message). Any other
 * undeclared prefix reads as no namespace, so its elements are ignored.
 */
const ASSUMED_PREFIXES: Readonly<Record<string, string>> = { zeebe: ZEEBE_NS };

function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return `${bytes.toLocaleString('en-US')} bytes (${mib >= 10 ? mib.toFixed(0) : mib.toFixed(1)} MiB)`;
}

function describe(problem: XmlProblem): string {
  switch (problem.kind) {
    case 'not-text':
      return `The model must be BPMN 2.0 XML text, but a value of type ${problem.type} was given.`;
    case 'too-large':
      return `The model is ${formatBytes(problem.bytes)}, more than the limit of ${formatBytes(problem.maxBytes)}; split it into smaller models.`;
    case 'declaration':
      return 'DOCTYPE and entity declarations are not allowed in models; remove the <!DOCTYPE …> section.';
    case 'screened':
      return problem.message;
    case 'malformed': {
      const tags = problem.unclosed?.map((tag) => `<${tag}>`);
      if (tags) return `The XML is incomplete: ${tags.join(', ')} ${tags.length === 1 ? 'is' : 'are'} never closed (is the file truncated?).`;
      const where = problem.line !== undefined ? ` at line ${problem.line}${problem.column !== undefined ? `, column ${problem.column}` : ''}` : '';
      return `The XML is malformed${where}: ${problem.reason}`;
    }
    case 'too-deep':
      return `The XML nests elements deeper than ${problem.maxDepth} levels, more than any BPMN model needs.`;
    case 'no-root':
      return 'The document has no root element: expected BPMN 2.0 XML with a <definitions> root element.';
    case 'undeclared-prefix':
      return `The element <${problem.qname}> uses the namespace prefix '${problem.prefix}', which is not declared.`;
  }
}

/** Parses `input` into its root element, or explains why it cannot be read. */
export function parseXml(input: string, limits: Limits = { maxBytes: DEFAULT_MAX_BYTES, maxElements: DEFAULT_MAX_ELEMENTS }): XmlResult {
  const read = readXml(input, {
    maxBytes: limits.maxBytes,
    screen: (xml) => checkBeforeParsing(xml, limits)?.message,
    assumedPrefixes: ASSUMED_PREFIXES,
    undeclaredPrefixes: 'no-namespace',
  });
  return read.ok ? read : { ok: false, problems: [{ message: describe(read.problem) }] };
}

/** The first child of `el` in the BPMN namespace with the given local name. */
export function bpmnChild(el: XmlElement, local: string): XmlElement | undefined {
  for (const c of el.children) if (c.ns === BPMN_NS && c.local === local) return c;
  return undefined;
}
