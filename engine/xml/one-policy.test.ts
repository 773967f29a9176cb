// BPMN and DMN documents meet the same hostile-input policy, since both
// compilers read through engine/xml/read-xml.ts: what one refuses for size,
// declarations or depth, so does the other, and what one reads, the other
// reads too.
import { describe, expect, it } from 'vitest';
import { compileDmn } from '../dmn/index.ts';
import { compileBpmn } from '../model/compile.ts';
import { BPMN_NS } from '../model/xml.ts';
import { LIMITS } from '../limits.ts';

const DMN13 = 'https://www.omg.org/spec/DMN/20191111/MODEL/';

const documents = {
  bpmn: (inner: string, prolog = '') => `${prolog}<bpmn:definitions xmlns:bpmn="${BPMN_NS}" id="d">${inner}</bpmn:definitions>`,
  dmn: (inner: string, prolog = '') => `${prolog}<definitions xmlns="${DMN13}" id="d" name="d" namespace="urn:d">${inner}</definitions>`,
};

function messages(kind: keyof typeof documents, xml: string, maxBytes?: number): string[] {
  const result = kind === 'bpmn' ? compileBpmn(xml, { maxBytes }) : compileDmn(xml, { maxBytes });
  return result.ok ? [] : result.problems.map((p) => p.message);
}

/** Elements nested `levels` deep inside the root. */
const nested = (levels: number) => `${'<x>'.repeat(levels)}${'</x>'.repeat(levels)}`;

describe.each(['bpmn', 'dmn'] as const)('%s documents', (kind) => {
  const doc = documents[kind];

  it(`refuse elements nested deeper than ${LIMITS.maxXmlDepth} levels, and only those`, () => {
    expect(messages(kind, doc(nested(LIMITS.maxXmlDepth)))).toEqual([expect.stringMatching(new RegExp(`deeper than ${LIMITS.maxXmlDepth} levels`))]);
    expect(messages(kind, doc(nested(LIMITS.maxXmlDepth - 1))).join('\n')).not.toMatch(/deeper/);
  });

  it('refuse DOCTYPE declarations, but not the word in a comment', () => {
    expect(messages(kind, doc('', '<!DOCTYPE d [<!ENTITY x "y">]>'))).toEqual([expect.stringMatching(/DOCTYPE .*not allowed/)]);
    expect(messages(kind, doc('<!-- <!DOCTYPE d> -->')).join('\n')).not.toMatch(/DOCTYPE/);
  });

  it('refuse documents over the byte limit they are given', () => {
    const xml = doc('');
    expect(messages(kind, xml, Buffer.byteLength(xml) - 1)).toEqual([expect.stringMatching(/limit of \d+ bytes/)]);
    expect(messages(kind, xml, Buffer.byteLength(xml)).join('\n')).not.toMatch(/limit of/);
  });
});
