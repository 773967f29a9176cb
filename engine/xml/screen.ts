// The checks on XML text that run before any parser sees it, each in one
// pass over the text, so hostile input costs no more than reading it: the
// size in UTF-8 bytes, and DOCTYPE / ENTITY declarations (entity expansion
// such as billion laughs, external entities). Declarations are looked for
// in markup only: the same words inside a comment, a CDATA section or a
// processing instruction declare nothing.

/** UTF-8 size of `xml`, or undefined when it is certainly within `maxBytes`. */
export function bytesOver(xml: string, maxBytes: number): number | undefined {
  // Every UTF-16 code unit encodes to one to three UTF-8 bytes: a short text needs no count.
  if (xml.length * 3 <= maxBytes) return undefined;
  const bytes = Buffer.byteLength(xml, 'utf8');
  return bytes > maxBytes ? bytes : undefined;
}

export type Declaration = 'DOCTYPE' | 'ENTITY';

const ANYWHERE = /<!\s*(?:DOCTYPE|ENTITY)/i;
const AT = /<!\s*(DOCTYPE|ENTITY)/iy;

/** Constructs whose content is not markup, by their opening and closing text. */
const OPAQUE: readonly (readonly [open: string, close: string])[] = [
  ['<!--', '-->'],
  ['<![CDATA[', ']]>'],
  ['<?', '?>'],
];

/** The first declaration in the markup of `xml`, or undefined when it declares none. */
export function declarationIn(xml: string): Declaration | undefined {
  // Most documents never mention either word; they cost one scan.
  if (!ANYWHERE.test(xml)) return undefined;
  // Read '<' by '<' as the parser does, stepping over opaque constructs whole.
  // An unclosed one runs to the end of the text; the document is then
  // malformed and the validator refuses it.
  let at = xml.indexOf('<');
  scan: while (at !== -1) {
    for (const [open, close] of OPAQUE) {
      if (!xml.startsWith(open, at)) continue;
      const end = xml.indexOf(close, at + open.length);
      if (end === -1) return undefined;
      at = xml.indexOf('<', end + close.length);
      continue scan;
    }
    AT.lastIndex = at;
    const found = AT.exec(xml);
    if (found) return found[1].toUpperCase() as Declaration;
    at = xml.indexOf('<', at + 1);
  }
  return undefined;
}
