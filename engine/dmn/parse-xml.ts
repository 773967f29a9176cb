// Secure, namespace-aware XML reading for DMN documents. fast-xml-parser
// tokenises; this module refuses oversized input and DOCTYPE/entity
// declarations before the parser sees them (no entity expansion, no external
// resources), resolves element prefixes to namespace URIs (DMN files use any
// prefix, or none), and decodes XML's predefined and numeric character
// references itself, because the parser only decodes numeric ones together
// with the HTML entity set, which XML does not have.
import { XMLParser } from 'fast-xml-parser';

export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;

/** DMN nests a handful of levels; anything this deep is hostile or broken. */
const MAX_DEPTH = 256;

export interface XmlElement {
  /** Namespace URI, '' when the element has none. */
  readonly ns: string;
  readonly localName: string;
  /** Unprefixed attributes only (prefixed ones are vendor extensions DMN evaluation ignores). */
  readonly attrs: ReadonlyMap<string, string>;
  readonly children: readonly XmlElement[];
  /** Character data of the direct text and CDATA children, concatenated. */
  readonly text: string;
}

export type XmlResult = { ok: true; root: XmlElement } | { ok: false; message: string };

const XML_NS = 'http://www.w3.org/XML/1998/namespace';

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  cdataPropName: '#cdata',
  ignoreDeclaration: true,
  ignorePiTags: true,
  processEntities: false,
});

export function parseXml(xml: string, maxBytes: number = DEFAULT_MAX_BYTES): XmlResult {
  if (typeof xml !== 'string') return { ok: false, message: 'the document must be a string' };
  // A UTF-16 code unit is at least one UTF-8 byte, so the cheap length test settles most cases.
  if (xml.length > maxBytes || Buffer.byteLength(xml, 'utf8') > maxBytes) {
    return { ok: false, message: `the document exceeds the size limit of ${maxBytes} bytes` };
  }
  const declaration = findDeclaration(xml);
  if (declaration !== undefined) {
    return { ok: false, message: `${declaration} declarations are not allowed in DMN documents (no DTDs or entities)` };
  }
  let nodes: unknown;
  try {
    nodes = parser.parse(xml, true);
  } catch (err) {
    return { ok: false, message: `the document is not well-formed XML: ${err instanceof Error ? err.message : String(err)}` };
  }
  const roots = Array.isArray(nodes) ? nodes.filter((n) => elementName(n) !== undefined) : [];
  if (roots.length !== 1) return { ok: false, message: 'the document must have exactly one root element' };
  try {
    return { ok: true, root: toElement(roots[0] as Record<string, unknown>, new Map([['xml', XML_NS]]), 0) };
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}

/** Returns 'DOCTYPE' or 'ENTITY' when the markup (outside comments and CDATA) declares one. */
function findDeclaration(xml: string): string | undefined {
  const pattern = /<!\s*(DOCTYPE|ENTITY)/i;
  if (!pattern.test(xml)) return undefined;
  // Only pay for stripping when the fast test hits: a CDATA or comment may mention it harmlessly.
  const markup = xml.replace(/<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>/g, '');
  const match = pattern.exec(markup);
  return match ? match[1].toUpperCase() : undefined;
}

function elementName(node: unknown): string | undefined {
  if (node === null || typeof node !== 'object') return undefined;
  for (const key of Object.keys(node)) {
    if (key !== ':@' && key !== '#text' && key !== '#cdata') return key;
  }
  return undefined;
}

function toElement(node: Record<string, unknown>, scope: ReadonlyMap<string, string>, depth: number): XmlElement {
  if (depth > MAX_DEPTH) throw new Error(`the document nests elements deeper than ${MAX_DEPTH} levels`);
  const qname = elementName(node) as string;
  const rawAttrs = (node[':@'] ?? {}) as Record<string, string>;

  let ownScope = scope;
  const attrs = new Map<string, string>();
  for (const [key, raw] of Object.entries(rawAttrs)) {
    const value = decodeReferences(raw);
    if (key === 'xmlns' || key.startsWith('xmlns:')) {
      // Copy the scope only when this element declares something.
      if (ownScope === scope) ownScope = new Map(scope);
      (ownScope as Map<string, string>).set(key === 'xmlns' ? '' : key.slice(6), value);
    } else if (!key.includes(':')) {
      attrs.set(key, value);
    }
  }

  const colon = qname.indexOf(':');
  const prefix = colon < 0 ? '' : qname.slice(0, colon);
  const localName = colon < 0 ? qname : qname.slice(colon + 1);
  const ns = ownScope.get(prefix);
  if (ns === undefined && prefix !== '') {
    throw new Error(`element <${qname}> uses the namespace prefix '${prefix}', which is not declared`);
  }

  const children: XmlElement[] = [];
  let text = '';
  for (const child of (node[qname] ?? []) as Record<string, unknown>[]) {
    if ('#text' in child) text += decodeReferences(String(child['#text']));
    else if ('#cdata' in child) text += cdataText(child['#cdata']);
    else if (elementName(child) !== undefined) children.push(toElement(child, ownScope, depth + 1));
  }
  return { ns: ns ?? '', localName, attrs, children, text };
}

function cdataText(cdata: unknown): string {
  if (!Array.isArray(cdata)) return '';
  let text = '';
  for (const part of cdata) {
    if (part !== null && typeof part === 'object' && '#text' in part) text += String(part['#text']);
  }
  return text;
}

const REFERENCE = /&(?:#(\d+)|#x([0-9a-fA-F]+)|(lt|gt|amp|quot|apos));/g;
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** One pass, so `&amp;lt;` stays the text `&lt;`. */
function decodeReferences(raw: string): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(REFERENCE, (whole, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (name !== undefined) return NAMED[name];
    const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex as string, 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}
