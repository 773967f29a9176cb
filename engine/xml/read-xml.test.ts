// The one XML reader of BPMN and DMN: its hostile-input policy (size,
// declarations, depth, well-formedness) and the tree it builds (namespaces,
// references, text). The compilers' own tests check their wording of it.
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../limits.ts';
import type { XmlElement } from './element.ts';
import { readXml, type ReadXmlOptions, type XmlProblem } from './read-xml.ts';

function root(xml: string, options?: ReadXmlOptions): XmlElement {
  const read = readXml(xml, options);
  if (!read.ok) throw new Error(`expected the document to be read, got ${JSON.stringify(read.problem)}`);
  return read.root;
}

function problem(xml: unknown, options?: ReadXmlOptions): XmlProblem {
  const read = readXml(xml, options);
  if (read.ok) throw new Error('expected the document to be refused');
  return read.problem;
}

/** `levels` elements, each inside the one before; the innermost written as `<x/>` when selfClosing. */
function nested(levels: number, selfClosing = false): string {
  const inner = selfClosing ? '<x/>' : '<x></x>';
  return `${'<x>'.repeat(levels - 1)}${inner}${'</x>'.repeat(levels - 1)}`;
}

describe('readXml: size', () => {
  it('refuses a document over the limit in UTF-8 bytes, not characters', () => {
    const xml = `<r>${'é'.repeat(60)}</r>`;
    const bytes = Buffer.byteLength(xml);
    expect(root(xml, { maxBytes: bytes }).text).toBe('é'.repeat(60));
    expect(problem(xml, { maxBytes: bytes - 1 })).toEqual({ kind: 'too-large', bytes, maxBytes: bytes - 1 });
    expect(xml.length).toBeLessThan(bytes - 1);
  });

  it('holds LIMITS.maxModelBytes when no limit is given', () => {
    const xml = `<r><!--${'x'.repeat(LIMITS.maxModelBytes)}--></r>`;
    expect(problem(xml)).toMatchObject({ kind: 'too-large', maxBytes: LIMITS.maxModelBytes });
  });

  it('refuses a value that is not text', () => {
    expect(problem(null)).toEqual({ kind: 'not-text', type: 'null' });
    expect(problem(42)).toEqual({ kind: 'not-text', type: 'number' });
  });
});

describe('readXml: DOCTYPE and entity declarations', () => {
  it('refuses billion laughs and external entities before parsing', () => {
    const laughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]><r>&lol2;</r>`;
    expect(problem(laughs)).toEqual({ kind: 'declaration', declaration: 'DOCTYPE' });
    expect(problem('<!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>')).toEqual({ kind: 'declaration', declaration: 'DOCTYPE' });
    expect(problem('<!ENTITY x "y"><r>&x;</r>')).toEqual({ kind: 'declaration', declaration: 'ENTITY' });
    expect(problem('<! doctype r><r/>')).toEqual({ kind: 'declaration', declaration: 'DOCTYPE' });
  });

  it('reads the words inside a comment, a CDATA section or a processing instruction', () => {
    const xml = '<?xml version="1.0"?><!-- <!DOCTYPE x> --><?note <!ENTITY y> ?><r><![CDATA[<!ENTITY z "z">]]></r>';
    expect(root(xml).text).toBe('<!ENTITY z "z">');
  });

  it('is not fooled by a comment opener inside a processing instruction or an earlier comment', () => {
    const hidden = '<?pi <!-- ?><!DOCTYPE d [<!ENTITY x "boom">]><r>&x;</r><?pi --> ?>';
    expect(problem(hidden)).toEqual({ kind: 'declaration', declaration: 'DOCTYPE' });
    expect(problem('<!-- <!DOCTYPE a> --><!DOCTYPE b><r/>')).toEqual({ kind: 'declaration', declaration: 'DOCTYPE' });
  });

  it('never expands an entity it was not told about', () => {
    const r = root('<r a="&x;">&x;</r>');
    expect(r.text).toBe('&x;');
    expect(r.attrs.a).toBe('&x;');
  });
});

describe('readXml: depth', () => {
  it(`reads ${LIMITS.maxXmlDepth} levels and refuses one more, whether the innermost element is open or self-closing`, () => {
    expect(readXml(nested(LIMITS.maxXmlDepth)).ok).toBe(true);
    expect(readXml(nested(LIMITS.maxXmlDepth, true)).ok).toBe(true);
    expect(problem(nested(LIMITS.maxXmlDepth + 1))).toEqual({ kind: 'too-deep', maxDepth: LIMITS.maxXmlDepth });
    expect(problem(nested(LIMITS.maxXmlDepth + 1, true))).toEqual({ kind: 'too-deep', maxDepth: LIMITS.maxXmlDepth });
  });

  it('refuses a document nested 100,000 deep without running out of stack', () => {
    expect(problem(nested(100_000))).toEqual({ kind: 'too-deep', maxDepth: LIMITS.maxXmlDepth });
  });
});

describe('readXml: well-formedness', () => {
  it('refuses mismatched tags with the line and column', () => {
    expect(problem('<r>\n  <a>\n  </b>\n</r>')).toMatchObject({ kind: 'malformed', line: 3, column: expect.any(Number) });
  });

  it('names the elements a truncated document leaves open', () => {
    expect(problem('<r><a><b>text')).toMatchObject({ kind: 'malformed', unclosed: ['r', 'a', 'b'] });
  });

  it('refuses text that is not XML, and empty text', () => {
    expect(problem('hello')).toMatchObject({ kind: 'malformed' });
    expect(problem('')).toMatchObject({ kind: 'malformed' });
  });

  it('tolerates a byte order mark and whitespace before the XML declaration, and keeps error lines true', () => {
    const doc = '<?xml version="1.0" encoding="UTF-8"?>\n<r><a/></r>';
    expect(readXml(`\uFEFF${doc}`).ok).toBe(true);
    expect(readXml(`\n\n  ${doc}`).ok).toBe(true);
    expect(problem(`\n\n${doc.replace('<a/>', '<a>')}`)).toMatchObject({ kind: 'malformed', line: 4 });
  });
});

describe('readXml: the caller’s screen', () => {
  it('runs after the size and declaration checks, before parsing, and its message refuses', () => {
    const seen: string[] = [];
    const screen = (xml: string) => {
      seen.push(xml);
      return xml.includes('<bad') ? 'no bad elements' : undefined;
    };
    expect(problem('<r><bad/></r>', { screen })).toEqual({ kind: 'screened', message: 'no bad elements' });
    expect(problem('<r><bad/></r>', { screen, maxBytes: 5 })).toMatchObject({ kind: 'too-large' });
    expect(problem('<!DOCTYPE r><r><bad/></r>', { screen })).toMatchObject({ kind: 'declaration' });
    expect(problem('<r><unclosed></r>', { screen })).toMatchObject({ kind: 'malformed' });
    expect(seen).toEqual(['<r><bad/></r>', '<r><unclosed></r>']);
  });
});

describe('readXml: the tree', () => {
  const A = 'urn:a';
  const B = 'urn:b';

  it('resolves names by namespace URI: default, prefixed, declared on inner elements, rebound', () => {
    const r = root(`<r xmlns="${A}" xmlns:p="${B}"><p:one/><two xmlns:p="${A}"><p:three/></two><four xmlns=""/></r>`);
    expect(r).toMatchObject({ ns: A, local: 'r', qname: 'r', xmlns: { '': A, p: B } });
    expect(r.children.map((c) => [c.ns, c.local, c.qname])).toEqual([
      [B, 'one', 'p:one'],
      [A, 'two', 'two'],
      ['', 'four', 'four'],
    ]);
    expect(r.children[1].children[0]).toMatchObject({ ns: A, local: 'three' });
  });

  it('splits attributes into plain and qualified ones', () => {
    const r = root(`<r xmlns:p="${B}" id="x" p:flag="1" xml:lang="en"/>`);
    expect({ ...r.attrs }).toEqual({ id: 'x' });
    expect(r.nsAttrs).toEqual([
      { ns: B, prefix: 'p', local: 'flag', value: '1' },
      { ns: 'http://www.w3.org/XML/1998/namespace', prefix: 'xml', local: 'lang', value: 'en' },
    ]);
  });

  it('refuses an undeclared element prefix, or reads it as assumed or as no namespace, as the caller asks', () => {
    const xml = '<r><z:a/><constructor:b/></r>';
    expect(problem(xml, { undeclaredPrefixes: 'refuse', assumedPrefixes: { z: A } })).toEqual({
      kind: 'undeclared-prefix',
      qname: 'constructor:b',
      prefix: 'constructor',
    });
    const r = root(xml, { undeclaredPrefixes: 'no-namespace', assumedPrefixes: { z: A } });
    expect(r.children.map((c) => c.ns)).toEqual([A, '']);
  });

  it('decodes predefined and numeric references once, in text and attributes, and keeps CDATA as written', () => {
    const r = root('<r q="&#34;x&#x22; &amp;lt;"><a>&#65;&#x42; &lt; &amp;lt;</a><b>"x <![CDATA[&amp; <y>]]> z"</b></r>');
    expect(r.attrs.q).toBe('"x" &lt;');
    expect(r.children[0].text).toBe('AB < &lt;');
    expect(r.children[1].text).toBe('"x &amp; <y> z"');
  });

  it('trims text at its ends and attribute values, keeps document order, and leaves out children’s text', () => {
    const r = root('<r  id="  spaced  ">\n  lead <b/> mid <a>inner</a> tail\n  <c/>\n</r>');
    expect(r.attrs.id).toBe('spaced');
    expect(r.text).toBe('lead  mid  tail');
    expect(r.children.map((c) => c.local)).toEqual(['b', 'a', 'c']);
  });
});
