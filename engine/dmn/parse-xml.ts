// DMN documents through the shared XML reader (engine/xml/read-declared.ts),
// with its one policy for size, depth and declarations. DMN files use any
// prefix, or none, but must declare it.
import { LIMITS } from '../limits.ts';
import { readDeclaredXml, type DeclaredXmlResult } from '../xml/read-declared.ts';

export type { XmlElement } from '../xml/element.ts';

export const DEFAULT_MAX_BYTES = LIMITS.maxModelBytes;

export type XmlResult = DeclaredXmlResult;

export function parseXml(xml: string, maxBytes: number = DEFAULT_MAX_BYTES): XmlResult {
  return readDeclaredXml(xml, maxBytes, 'DMN');
}
