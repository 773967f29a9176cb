// XML text → a namespace-resolved element tree. fast-xml-parser does the
// tokenising (its validator first, because its parser silently accepts
// mismatched or unclosed tags); this module then resolves every element and
// attribute name to its namespace URI, because real models bind BPMN to
// `bpmn:`, `bpmn2:`, `semantic:` or the default namespace, and may declare
// prefixes on inner elements. Document order of children is kept.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { ModelProblem } from './types.ts';

export const BPMN_NS = 'http://www.omg.org/spec/BPMN/20100524/MODEL';
export const BPMNDI_NS = 'http://www.omg.org/spec/BPMN/20100524/DI';
export const ZEEBE_NS = 'http://camunda.org/schema/zeebe/1.0';

/** A namespace-qualified attribute (xmlns declarations excluded). */
export interface XmlAttr {
  ns: string;
  /** Prefix as written, for messages. */
  prefix: string;
  local: string;
  value: string;
}

/** One element. Plain data (no parent links), so it can be kept as is in the compiled model. */
export interface XmlElement {
  /** Namespace URI; '' when the name is unqualified and no default namespace is declared. */
  ns: string;
  local: string;
  /** The name as written, prefix included. */
  qname: string;
  /** Unqualified attributes by name. */
  attrs: Record<string, string>;
  /** Qualified attributes (zeebe:…, camunda:…, xsi:…), when there are any. */
  nsAttrs?: XmlAttr[];
  /** Namespace declarations made on this element: prefix ('' for the default) → URI. */
  xmlns?: Record<string, string>;
  children: XmlElement[];
  /** Text content (CDATA included), each run trimmed. */
  text: string;
}

export type XmlResult = { ok: true; root: XmlElement } | { ok: false; problems: ModelProblem[] };

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const ENTITY_PATTERN = /&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g;

function decodeEntity(match: string, body: string): string {
  if (body.charCodeAt(0) !== 35 /* # */) return XML_ENTITIES[body];
  const code = body.charCodeAt(1) === 120 /* x */ ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match;
}

/**
 * XML's predefined and numeric character references only. fast-xml-parser 5
 * decodes numeric references only together with HTML entities, and Camunda
 * Modeler writes FEEL quotes as `&#34;`. DOCTYPE is refused before parsing, so
 * there are never declared entities to expand.
 */
const entityDecoder = {
  setExternalEntities(): void {},
  addInputEntities(): void {},
  reset(): void {},
  setXmlVersion(): void {},
  decode(text: string): string {
    return text.indexOf('&') === -1 ? text : text.replace(ENTITY_PATTERN, decodeEntity);
  },
};

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  entityDecoder,
  ignoreDeclaration: true,
  ignorePiTags: true,
  jPath: false,
  maxNestedTags: 200,
});

type OrderedNode = Record<string, unknown>;

/** Resolves prefixes; a new scope is only made where an element declares namespaces. */
class Scope {
  constructor(
    private readonly parent: Scope | undefined,
    private readonly map: Map<string, string>,
  ) {}
  lookup(prefix: string): string | undefined {
    return this.map.get(prefix) ?? this.parent?.lookup(prefix);
  }
  child(declared: Map<string, string>): Scope {
    return new Scope(this, declared);
  }
}

/**
 * Prefixes that models use without declaring them still have to be read so
 * that the compiler can say what is missing; only `zeebe:` is worth it (its
 * declaration is a SPEC.md requirement with its own message).
 */
const FALLBACK_PREFIXES: Record<string, string> = { zeebe: ZEEBE_NS };

function resolve(scope: Scope, prefix: string): string {
  return scope.lookup(prefix) ?? (prefix === '' ? '' : (FALLBACK_PREFIXES[prefix] ?? ''));
}

function split(qname: string): [prefix: string, local: string] {
  const colon = qname.indexOf(':');
  return colon === -1 ? ['', qname] : [qname.slice(0, colon), qname.slice(colon + 1)];
}

function tagOf(node: OrderedNode): string | undefined {
  for (const key in node) if (key !== ':@') return key;
  return undefined;
}

function convert(tag: string, node: OrderedNode, parentScope: Scope): XmlElement {
  const raw = node[':@'] as Record<string, string> | undefined;
  let scope = parentScope;
  let xmlns: Record<string, string> | undefined;
  if (raw) {
    let declared: Map<string, string> | undefined;
    for (const name in raw) {
      if (name === 'xmlns' || name.startsWith('xmlns:')) {
        const prefix = name === 'xmlns' ? '' : name.slice(6);
        (declared ??= new Map()).set(prefix, raw[name]);
        (xmlns ??= Object.create(null) as Record<string, string>)[prefix] = raw[name];
      }
    }
    if (declared) scope = parentScope.child(declared);
  }

  const [prefix, local] = split(tag);
  const attrs = Object.create(null) as Record<string, string>;
  let nsAttrs: XmlAttr[] | undefined;
  if (raw) {
    for (const name in raw) {
      if (name === 'xmlns' || name.startsWith('xmlns:')) continue;
      const value = String(raw[name]);
      const colon = name.indexOf(':');
      if (colon === -1) attrs[name] = value;
      else {
        const attrPrefix = name.slice(0, colon);
        (nsAttrs ??= []).push({ ns: resolve(scope, attrPrefix), prefix: attrPrefix, local: name.slice(colon + 1), value });
      }
    }
  }

  const children: XmlElement[] = [];
  let text = '';
  const content = node[tag] as OrderedNode[] | undefined;
  if (content) {
    for (const child of content) {
      const childTag = tagOf(child);
      if (childTag === undefined) continue;
      if (childTag === '#text') text += String(child[childTag]);
      else children.push(convert(childTag, child, scope));
    }
  }

  const element: XmlElement = { ns: resolve(scope, prefix), local, qname: tag, attrs, children, text };
  if (nsAttrs) element.nsAttrs = nsAttrs;
  if (xmlns) element.xmlns = xmlns;
  return element;
}

/** The validator reports unclosed tags as a JSON-ish list; turn it into a sentence. */
function describeXmlError(err: { code?: string; msg?: string; line?: number; col?: number }): string {
  const where = err.line !== undefined ? ` at line ${err.line}${err.col !== undefined ? `, column ${err.col}` : ''}` : '';
  const msg = String(err.msg ?? 'unknown error');
  if (err.code === 'InvalidXml' && msg.startsWith("Invalid '[")) {
    const tags = [...msg.matchAll(/"([^"]+)"/g)].map((m) => `<${m[1]}>`);
    if (tags.length > 0) return `The XML is incomplete: ${tags.join(', ')} ${tags.length === 1 ? 'is' : 'are'} never closed (is the file truncated?).`;
  }
  return `The XML is malformed${where}: ${msg}`;
}

/** Parses `xml` into its root element, or explains why it cannot be read. */
export function parseXml(input: string): XmlResult {
  // Whitespace before the XML declaration is strictly an error, but it is what
  // templating and HTTP clients add most often; skip it and keep line numbers true.
  const lead = /^\s+(?=<\?xml)/.exec(input)?.[0] ?? '';
  const xml = lead === '' ? input : input.slice(lead.length);
  const validation = XMLValidator.validate(xml);
  if (validation !== true) {
    const err = validation.err;
    const skippedLines = lead.split('\n').length - 1;
    return { ok: false, problems: [{ message: describeXmlError({ ...err, line: err.line === undefined ? undefined : err.line + skippedLines }) }] };
  }

  let nodes: OrderedNode[];
  try {
    nodes = parser.parse(xml) as OrderedNode[];
  } catch (err) {
    return { ok: false, problems: [{ message: `The XML cannot be read: ${err instanceof Error ? err.message : String(err)}` }] };
  }
  const rootScope = new Scope(undefined, new Map([['xml', 'http://www.w3.org/XML/1998/namespace']]));
  for (const node of nodes) {
    const tag = tagOf(node);
    if (tag !== undefined && tag !== '#text') return { ok: true, root: convert(tag, node, rootScope) };
  }
  return { ok: false, problems: [{ message: 'The document has no root element: expected BPMN 2.0 XML with a <definitions> root element.' }] };
}

/** Value of a qualified attribute of `el` in namespace `ns`. */
export function nsAttr(el: XmlElement, ns: string, local: string): string | undefined {
  if (!el.nsAttrs) return undefined;
  for (const a of el.nsAttrs) if (a.ns === ns && a.local === local) return a.value;
  return undefined;
}

/** Children of `el` in the BPMN namespace with the given local name. */
export function bpmnChildren(el: XmlElement, local: string): XmlElement[] {
  return el.children.filter((c) => c.ns === BPMN_NS && c.local === local);
}

export function bpmnChild(el: XmlElement, local: string): XmlElement | undefined {
  for (const c of el.children) if (c.ns === BPMN_NS && c.local === local) return c;
  return undefined;
}
