// Documents that must declare every namespace prefix they use — DMN and
// CMMN — through the shared reader (read-xml.ts), with the reader's problems
// worded once for both: an element with an undeclared prefix is refused
// rather than read as no namespace.
import type { XmlElement } from './element.ts';
import { readXml, type XmlProblem } from './read-xml.ts';

export type DeclaredXmlResult = { ok: true; root: XmlElement } | { ok: false; message: string };

/** `language` names the kind of document in the messages ("DMN", "CMMN"). */
export function readDeclaredXml(xml: string, maxBytes: number, language: string): DeclaredXmlResult {
  const read = readXml(xml, { maxBytes, undeclaredPrefixes: 'refuse' });
  return read.ok ? read : { ok: false, message: describe(read.problem, language) };
}

function describe(problem: XmlProblem, language: string): string {
  switch (problem.kind) {
    case 'not-text':
      return 'the document must be a string';
    case 'too-large':
      return `the document exceeds the size limit of ${problem.maxBytes} bytes`;
    case 'declaration':
      return `${problem.declaration} declarations are not allowed in ${language} documents (no DTDs or entities)`;
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
