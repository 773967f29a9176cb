// CMMN documents through the shared XML reader (engine/xml/read-xml.ts), with
// its one policy for size, depth and DOCTYPE / entity declarations, and its
// problems worded for CMMN. Like DMN files, CMMN files must declare every
// prefix they use.
import { LIMITS } from '../limits.ts';
import type { XmlElement } from '../xml/element.ts';
import { readXml, type XmlProblem } from '../xml/read-xml.ts';

export type XmlResult = { ok: true; root: XmlElement } | { ok: false; message: string };

function describe(problem: XmlProblem): string {
  switch (problem.kind) {
    case 'not-text':
      return 'the document must be a string';
    case 'too-large':
      return `the document exceeds the size limit of ${problem.maxBytes} bytes`;
    case 'declaration':
      return `${problem.declaration} declarations are not allowed in CMMN documents (no DTDs or entities)`;
    case 'screened':
      return problem.message;
    case 'malformed': {
      if (problem.unclosed)
        return `the document is not well-formed XML: ${problem.unclosed.map((tag) => `<${tag}>`).join(', ')} never closed (is it truncated?)`;
      const where = problem.line !== undefined ? ` (line ${problem.line}${problem.column !== undefined ? `, column ${problem.column}` : ''})` : '';
      return `the document is not well-formed XML: ${problem.reason}${where}`;
    }
    case 'too-deep':
      return `the document nests elements deeper than ${problem.maxDepth} levels`;
    case 'no-root':
      return 'the document must have exactly one root element';
    case 'undeclared-prefix':
      return `element <${problem.qname}> uses the namespace prefix '${problem.prefix}', which is not declared`;
  }
}

export function parseCmmnXml(xml: string, maxBytes: number = LIMITS.maxModelBytes): XmlResult {
  const read = readXml(xml, { maxBytes, undeclaredPrefixes: 'refuse' });
  return read.ok ? read : { ok: false, message: describe(read.problem) };
}
