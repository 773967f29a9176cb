// XML's character references: the five predefined entities and numeric
// references, and nothing else. The reader decodes them itself (the parser's
// own decoding is off) because fast-xml-parser decodes numeric references
// only together with the HTML entity set, which XML does not have, and
// Camunda Modeler writes FEEL quotes as `&#34;`. Declared entities are never
// expanded: documents that declare any are refused before parsing.

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const REFERENCE = /&(?:#(\d+)|#x([0-9a-fA-F]+)|(lt|gt|amp|quot|apos));/g;

/** One pass, so `&amp;lt;` stays the text `&lt;`; a reference to no character stays as written. */
export function decodeReferences(raw: string): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(REFERENCE, (whole, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (name !== undefined) return PREDEFINED[name];
    const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex as string, 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}
