// The one XML reader of BPMN and DMN documents, and its one policy for
// hostile input: text over the size limit and DOCTYPE / entity declarations
// are refused before parsing (screen.ts); then fast-xml-parser's validator
// runs (its parser silently accepts mismatched or unclosed tags), and the
// parser builds the tree no deeper than LIMITS.maxXmlDepth. This module then
// resolves every element and attribute name to its namespace URI, because
// real models bind BPMN to `bpmn:`, `bpmn2:`, `semantic:` or the default
// namespace, DMN to any prefix or none, and may declare prefixes on inner
// elements. Each compiler words the problems for its own documents.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { LIMITS } from '../limits.ts';
import type { XmlAttr, XmlElement } from './element.ts';
import { decodeReferences } from './references.ts';
import { bytesOver, declarationIn, type Declaration } from './screen.ts';

export interface ReadXmlOptions {
  /** Largest document in UTF-8 bytes; LIMITS.maxModelBytes when absent. */
  maxBytes?: number;
  /** The caller's own checks of the text, run once it is within the size and free of declarations, before parsing: a message refuses it. */
  screen?: (xml: string) => string | undefined;
  /**
   * Namespaces assumed for prefixes a document uses without declaring them,
   * so a compiler can still read the elements and say what is missing.
   */
  assumedPrefixes?: Readonly<Record<string, string>>;
  /** An element whose prefix is neither declared nor assumed: refused, or read as in no namespace. */
  undeclaredPrefixes?: 'refuse' | 'no-namespace';
}

/** Why a document cannot be read, with what a message about it needs. */
export type XmlProblem =
  | { kind: 'not-text'; type: string }
  | { kind: 'too-large'; bytes: number; maxBytes: number }
  | { kind: 'declaration'; declaration: Declaration }
  | { kind: 'screened'; message: string }
  /** `unclosed`: the elements left open at the end (a truncated document), when that is the fault. */
  | { kind: 'malformed'; reason: string; line?: number; column?: number; unclosed?: string[] }
  | { kind: 'too-deep'; maxDepth: number }
  | { kind: 'no-root' }
  | { kind: 'undeclared-prefix'; qname: string; prefix: string };

export type XmlRead = { ok: true; root: XmlElement } | { ok: false; problem: XmlProblem };

const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const MAX_DEPTH = LIMITS.maxXmlDepth;

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  // convert trims text once it is whole, so that the spaces next to a CDATA
  // section in the middle of a text are kept.
  trimValues: false,
  cdataPropName: '#cdata',
  processEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  jPath: false,
  // The parser refuses to open an element at level MAX_DEPTH + 1 (its count starts below the root).
  maxNestedTags: MAX_DEPTH - 1,
});

/** What fast-xml-parser throws at maxNestedTags; anything else it throws is reported as is. */
const PARSER_TOO_DEEP = 'Maximum nested tags exceeded';

type OrderedNode = Record<string, unknown>;

class TooDeep extends Error {}
class UndeclaredPrefix extends Error {
  constructor(
    readonly qname: string,
    readonly prefix: string,
  ) {
    super(`undeclared prefix ${prefix}`);
  }
}

/** Prefix → namespace URI; a new scope is made only where an element declares namespaces. */
class Scope {
  constructor(
    private readonly parent: Scope | undefined,
    private readonly map: ReadonlyMap<string, string>,
  ) {}
  lookup(prefix: string): string | undefined {
    return this.map.get(prefix) ?? this.parent?.lookup(prefix);
  }
}

interface Reading {
  assumed: ReadonlyMap<string, string>;
  refuseUndeclared: boolean;
}

function split(qname: string): [prefix: string, local: string] {
  const colon = qname.indexOf(':');
  return colon === -1 ? ['', qname] : [qname.slice(0, colon), qname.slice(colon + 1)];
}

function tagOf(node: OrderedNode): string | undefined {
  for (const key in node) if (key !== ':@' && key !== '#text' && key !== '#cdata') return key;
  return undefined;
}

function cdataText(cdata: unknown): string {
  if (!Array.isArray(cdata)) return '';
  let text = '';
  for (const part of cdata) if (part !== null && typeof part === 'object' && '#text' in part) text += String(part['#text']);
  return text;
}

/** Values are trimmed as written, before references are decoded, so `&#32;` at an end is kept. */
function attributeValue(raw: unknown): string {
  return decodeReferences(String(raw).trim());
}

function convert(tag: string, node: OrderedNode, parentScope: Scope, depth: number, reading: Reading): XmlElement {
  // The parser stops open tags past the limit; this also catches self-closing ones.
  if (depth > MAX_DEPTH) throw new TooDeep();
  const raw = node[':@'] as Record<string, string> | undefined;
  let scope = parentScope;
  let xmlns: Record<string, string> | undefined;
  if (raw) {
    let declared: Map<string, string> | undefined;
    for (const name in raw) {
      if (name === 'xmlns' || name.startsWith('xmlns:')) {
        const prefix = name === 'xmlns' ? '' : name.slice(6);
        const uri = attributeValue(raw[name]);
        (declared ??= new Map()).set(prefix, uri);
        (xmlns ??= Object.create(null) as Record<string, string>)[prefix] = uri;
      }
    }
    if (declared) scope = new Scope(parentScope, declared);
  }
  const resolve = (prefix: string): string | undefined => scope.lookup(prefix) ?? (prefix === '' ? '' : reading.assumed.get(prefix));

  const [prefix, local] = split(tag);
  const ns = resolve(prefix);
  if (ns === undefined && reading.refuseUndeclared) throw new UndeclaredPrefix(tag, prefix);

  const attrs = Object.create(null) as Record<string, string>;
  let nsAttrs: XmlAttr[] | undefined;
  if (raw) {
    for (const name in raw) {
      if (name === 'xmlns' || name.startsWith('xmlns:')) continue;
      const value = attributeValue(raw[name]);
      const colon = name.indexOf(':');
      if (colon === -1) attrs[name] = value;
      else {
        const attrPrefix = name.slice(0, colon);
        (nsAttrs ??= []).push({ ns: resolve(attrPrefix) ?? '', prefix: attrPrefix, local: name.slice(colon + 1), value });
      }
    }
  }

  const children: XmlElement[] = [];
  let text = '';
  const content = node[tag] as OrderedNode[] | undefined;
  if (content) {
    for (const child of content) {
      if ('#text' in child) text += decodeReferences(String(child['#text']));
      else if ('#cdata' in child) text += cdataText(child['#cdata']);
      else {
        const childTag = tagOf(child);
        if (childTag !== undefined) children.push(convert(childTag, child, scope, depth + 1, reading));
      }
    }
  }

  const element: XmlElement = { ns: ns ?? '', local, qname: tag, attrs, children, text: text.trim() };
  if (nsAttrs) element.nsAttrs = nsAttrs;
  if (xmlns) element.xmlns = xmlns;
  return element;
}

/** The validator lists the elements a truncated document leaves open as a JSON-ish string. */
function malformed(err: { code?: string; msg?: string; line?: number; col?: number }, skippedLines: number): XmlProblem {
  const reason = String(err.msg ?? 'unknown error');
  if (err.code === 'InvalidXml' && reason.startsWith("Invalid '[")) {
    const unclosed = [...reason.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
    if (unclosed.length > 0) return { kind: 'malformed', reason, unclosed };
  }
  const problem: XmlProblem = { kind: 'malformed', reason };
  if (err.line !== undefined) problem.line = err.line + skippedLines;
  if (err.col !== undefined) problem.column = err.col;
  return problem;
}

/** Reads `input` into its root element, or says why it cannot be read; throws only on a bug. */
export function readXml(input: unknown, options: ReadXmlOptions = {}): XmlRead {
  const fail = (problem: XmlProblem): XmlRead => ({ ok: false, problem });
  if (typeof input !== 'string') return fail({ kind: 'not-text', type: input === null ? 'null' : typeof input });
  const maxBytes = options.maxBytes ?? LIMITS.maxModelBytes;
  const bytes = bytesOver(input, maxBytes);
  if (bytes !== undefined) return fail({ kind: 'too-large', bytes, maxBytes });
  const declaration = declarationIn(input);
  if (declaration !== undefined) return fail({ kind: 'declaration', declaration });
  const screened = options.screen?.(input);
  if (screened !== undefined) return fail({ kind: 'screened', message: screened });

  // Whitespace before the XML declaration is strictly an error, but it is what
  // templating and HTTP clients add most often; skip it and keep line numbers true.
  const lead = /^\s+(?=<\?xml)/.exec(input)?.[0] ?? '';
  const xml = lead === '' ? input : input.slice(lead.length);
  const validation = XMLValidator.validate(xml);
  if (validation !== true) return fail(malformed(validation.err, lead.split('\n').length - 1));

  let nodes: OrderedNode[];
  try {
    nodes = parser.parse(xml) as OrderedNode[];
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return fail(reason === PARSER_TOO_DEEP ? { kind: 'too-deep', maxDepth: MAX_DEPTH } : { kind: 'malformed', reason });
  }
  const reading: Reading = { assumed: new Map(Object.entries(options.assumedPrefixes ?? {})), refuseUndeclared: options.undeclaredPrefixes === 'refuse' };
  const rootScope = new Scope(undefined, new Map([['xml', XML_NS]]));
  for (const node of nodes) {
    const tag = tagOf(node);
    if (tag === undefined) continue;
    try {
      return { ok: true, root: convert(tag, node, rootScope, 1, reading) };
    } catch (err) {
      if (err instanceof TooDeep) return fail({ kind: 'too-deep', maxDepth: MAX_DEPTH });
      if (err instanceof UndeclaredPrefix) return fail({ kind: 'undeclared-prefix', qname: err.qname, prefix: err.prefix });
      throw err;
    }
  }
  return fail({ kind: 'no-root' });
}
