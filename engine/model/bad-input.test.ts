// Hostile and broken input: compileBpmn answers every one with ok:false and a
// clear message, quickly, without throwing.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileBpmn } from './compile.ts';
import { BPMN, bpmnDoc, chain } from './test-fixtures.ts';
import type { CompileResult } from './types.ts';

function rejected(result: CompileResult): string[] {
  expect(result.ok).toBe(false);
  return result.ok ? [] : result.problems.map((p) => p.message);
}

function timed<T>(fn: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = fn();
  return { value, ms: performance.now() - start };
}

describe('bad input', () => {
  it('malformed XML: one problem with the parser reason and line', () => {
    const messages = rejected(compileBpmn(`<bpmn:definitions xmlns:bpmn="${BPMN}">\n  <bpmn:process id="p">\n  </bpmn:task>\n</bpmn:definitions>`));
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/^The XML is malformed at line 3, column \d+: .+/);
  });

  it('truncated XML', () => {
    const messages = rejected(compileBpmn(bpmnDoc(chain([], [])).slice(0, 300)));
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/never closed|malformed/);
  });

  it('billion laughs: DOCTYPE and entity declarations are refused before parsing', () => {
    const laughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [
  <!ENTITY lol "lol">
  ${Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`).join('\n  ')}
]>
<bpmn:definitions xmlns:bpmn="${BPMN}"><bpmn:process id="p" name="&lol9;" isExecutable="true"><bpmn:startEvent id="s"/></bpmn:process></bpmn:definitions>`;
    const { value, ms } = timed(() => compileBpmn(laughs));
    expect(rejected(value)).toEqual(['DOCTYPE and entity declarations are not allowed in models; remove the <!DOCTYPE …> section.']);
    expect(ms).toBeLessThan(100);
  });

  it('an external entity (XXE) is refused the same way', () => {
    const xxe = `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><bpmn:definitions xmlns:bpmn="${BPMN}">&x;</bpmn:definitions>`;
    expect(rejected(compileBpmn(xxe))[0]).toContain('DOCTYPE and entity declarations are not allowed');
  });

  it('a 50 MB document is refused before parsing, with its size and the limit', () => {
    const padding = `<bpmn:textAnnotation id="a"><bpmn:text>${'x'.repeat(1024 * 1024)}</bpmn:text></bpmn:textAnnotation>`;
    const big = bpmnDoc(`${chain([], [])}${padding.repeat(50)}`);
    expect(big.length).toBeGreaterThan(50 * 1024 * 1024);
    const { value, ms } = timed(() => compileBpmn(big));
    const messages = rejected(value);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/^The model is 52,4\d\d,\d\d\d bytes \(50 MiB\), more than the limit of 10,485,760 bytes \(10 MiB\)/);
    expect(ms).toBeLessThan(1000);
  });

  it('maxBytes can be lowered', () => {
    expect(rejected(compileBpmn(bpmnDoc(chain([], [])), { maxBytes: 100 }))[0]).toContain('more than the limit of 100 bytes');
  });

  it('multi-byte characters count as UTF-8 bytes', () => {
    const xml = bpmnDoc(chain([], []).replace('id="s"', `id="s" name="${'é'.repeat(600)}"`));
    expect(compileBpmn(xml, { maxBytes: xml.length + 100 }).ok).toBe(false);
    expect(compileBpmn(xml, { maxBytes: Buffer.byteLength(xml) }).ok).toBe(true);
  });

  it('100,000 elements are refused quickly', () => {
    const tasks = Array.from(
      { length: 50_000 },
      (_, i) => `<bpmn:task id="t${i}"/><bpmn:sequenceFlow id="f${i}" sourceRef="t${i}" targetRef="t${i + 1}"/>`,
    ).join('');
    const xml = bpmnDoc(`<bpmn:startEvent id="s"/>${tasks}`);
    const { value, ms } = timed(() => compileBpmn(xml));
    expect(rejected(value)).toEqual([
      'The model has more than 20,000 flow elements and sequence flows, the most Orca accepts in one model; split it into smaller processes.',
    ]);
    expect(ms).toBeLessThan(500);
  });

  it('maxElements can be lowered', () => {
    const xml = bpmnDoc(chain(['a', 'b', 'c'], ['<bpmn:task id="a"/>', '<bpmn:task id="b"/>', '<bpmn:task id="c"/>']));
    expect(compileBpmn(xml, { maxElements: 9 }).ok).toBe(true);
    expect(rejected(compileBpmn(xml, { maxElements: 8 }))[0]).toContain('more than 8 flow elements');
  });

  it('a large model under the limits compiles in reasonable time', () => {
    const n = 5_000;
    const tasks = Array.from(
      { length: n },
      (_, i) => `<bpmn:task id="t${i}"/><bpmn:sequenceFlow id="f${i}" sourceRef="${i === 0 ? 's' : `t${i - 1}`}" targetRef="t${i}"/>`,
    ).join('');
    const xml = bpmnDoc(`<bpmn:startEvent id="s"/>${tasks}<bpmn:endEvent id="e"/><bpmn:sequenceFlow id="last" sourceRef="t${n - 1}" targetRef="e"/>`);
    const { value, ms } = timed(() => compileBpmn(xml));
    expect(value.ok).toBe(true);
    expect(ms).toBeLessThan(2000);
  });

  it('deep nesting is refused without a stack overflow', () => {
    const xml = `<bpmn:definitions xmlns:bpmn="${BPMN}">${'<a>'.repeat(5000)}${'</a>'.repeat(5000)}</bpmn:definitions>`;
    expect(rejected(compileBpmn(xml))).toHaveLength(1);
  });

  it.each([
    ['', 'The model is empty'],
    ['   \n ', 'The model is empty'],
    ['hello', 'The XML is malformed'],
  ])('%j', (xml, start) => {
    expect(rejected(compileBpmn(xml))[0].startsWith(start)).toBe(true);
  });

  it('XML that is not BPMN', () => {
    expect(rejected(compileBpmn('<?xml version="1.0"?><html><body>hi</body></html>'))).toEqual([
      `This is not a BPMN 2.0 model: the root element is <html>, expected <definitions> in namespace ${BPMN}.`,
    ]);
  });

  it('definitions in the wrong namespace (for example DMN)', () => {
    const dmn = '<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="d"><decision id="x"/></definitions>';
    expect(rejected(compileBpmn(dmn))[0]).toContain("is in namespace 'https://www.omg.org/spec/DMN/20191111/MODEL/', not BPMN 2.0");
  });

  it('a value that is not a string', () => {
    expect(rejected(compileBpmn(null as unknown as string))[0]).toContain('must be BPMN 2.0 XML text');
    expect(rejected(compileBpmn(42 as unknown as string))[0]).toContain('type number');
  });

  it('never throws on any prefix of a real model', () => {
    const xml = readFileSync(new URL('../../test/fixtures/bpmn/zp-play-demo.bpmn', import.meta.url), 'utf8');
    for (let end = 0; end < xml.length; end += 97) {
      const result = compileBpmn(xml.slice(0, end));
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.problems.length).toBeGreaterThan(0);
    }
  });
});
