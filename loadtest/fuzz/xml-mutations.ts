// Mutations of the BPMN and DMN documents sent to the deploy routes (raw
// XML or a multipart file part): characters Postgres cannot store, written
// as XML character references or raw, in the ids, names and job types that
// end up in rows; documents that are not well-formed, entity expansion
// (billion laughs, an external entity), broken multipart framing; and
// element nesting far deeper than any model needs.
import type { Draft } from './generate.ts';
import type { Rng } from './rng.ts';

function modelText(draft: Draft): string {
  if (draft.body.kind === 'xml') return draft.body.text;
  if (draft.body.kind === 'multipart') return draft.body.content;
  return '';
}

function setModelText(draft: Draft, text: string): void {
  if (draft.body.kind === 'multipart') draft.body.content = text;
  else draft.body = { kind: 'xml', text };
}

const REFS = [
  '&#0;',
  '&#x0;',
  '&#xD800;',
  '&#xDFFF;',
  '&#55296;',
  '&#xD83D;&#xDE00;',
  '&#1;',
  '&#x1F;',
  '&#xFFFE;',
  '&#x10FFFF;',
  '\u0000',
  '\u0001',
  '\u001b[31m',
];

export function xmlControlChars(draft: Draft, rng: Rng): void {
  const text = modelText(draft);
  const attributes = [...text.matchAll(/\s(id|name|type)="([^"]*)"/g)];
  if (attributes.length === 0) return setModelText(draft, text + rng.pick(REFS));
  // The process or decision id becomes a row's key column: aim there half the time.
  const ids = attributes.filter((m) => /<(bpmn:process|decision)\s[^>]*$/.test(text.slice(Math.max(0, m.index! - 200), m.index! + 1)));
  const target = ids.length > 0 && rng.chance(0.5) ? rng.pick(ids) : rng.pick(attributes);
  const start = target.index! + target[0].indexOf('"') + 1;
  const value = target[2];
  const at = start + rng.pick([0, Math.floor(value.length / 2), value.length]);
  setModelText(draft, text.slice(0, at) + rng.pick(REFS) + text.slice(at));
}

const LAUGHS = '<!DOCTYPE d [<!ENTITY l0 "lol">' + Array.from({ length: 9 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`).join('') + ']>';

export function xmlMalformed(draft: Draft, rng: Rng): void {
  const text = modelText(draft);
  const withDoctype = (doctype: string, ref: string) =>
    text
      .replace(/<\?xml[^>]*\?>/, '')
      .replace(/^\s*/, `${doctype}\n`)
      .replace(/ id="([^"]*)"/, ` id="$1${ref}"`);
  if (draft.body.kind === 'multipart' && rng.chance(0.4)) {
    const framing = rng.pick([
      `--b\r\nContent-Disposition: form-data; name="file"; filename="m.bpmn"\r\n\r\n${text}`,
      `--b\r\nContent-Disposition: form-data; name="other"\r\n\r\nx\r\n--b--\r\n`,
      `--b\r\nContent-Disposition: form-data; name="file"\r\n\r\n${text}\r\n--b--\r\n`,
      `--b\r\n\r\n${text}\r\n--b--\r\n`,
      `--c\r\nContent-Disposition: form-data; name="file"; filename="m.bpmn"\r\n\r\n${text}\r\n--c--\r\n`,
      `--b\r\nContent-Disposition: form-data; name="file"; filename="a.bpmn"\r\n\r\n${text}\r\n--b\r\nContent-Disposition: form-data; name="file"; filename="b.bpmn"\r\n\r\n${text}\r\n--b--\r\n`,
    ]);
    draft.body = { kind: 'bytes', bytes: Buffer.from(framing), contentType: 'multipart/form-data; boundary=b' };
    return;
  }
  setModelText(
    draft,
    rng.pick([
      text.slice(0, rng.int(1, Math.max(1, text.length - 1))),
      '<',
      'not xml at all',
      '{"json": true}',
      '<a/>',
      '<?xml version="1.0"?><bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"/>',
      text.replace(/<\/[a-z:]+>\s*$/i, ''),
      text + '<second-root/>',
      text.replace(/ id="/, ' id=unquoted id2="'),
      text.replace(/ id="([^"]*)"/, ' id="$1" id="$1"'),
      withDoctype(LAUGHS, '&l9;'),
      withDoctype('<!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>', '&x;'),
      withDoctype('<!DOCTYPE d [<!ENTITY x "&x;">]>', '&x;'),
      text.replace('encoding="UTF-8"', 'encoding="UTF-16"'),
    ]),
  );
}

export function xmlDeep(draft: Draft, rng: Rng): void {
  const text = modelText(draft);
  const depth = rng.pick([1_000, 10_000, 100_000]);
  const close = text.lastIndexOf('</');
  let inner: string;
  if (rng.chance(0.5)) inner = '<x>'.repeat(depth) + '</x>'.repeat(depth);
  else {
    // Sub-processes inside sub-processes: elements the model compiler walks, not just the XML parser.
    const levels = Math.min(depth, 20_000);
    inner = Array.from({ length: levels }, (_, i) => `<bpmn:subProcess id="s${i}">`).join('') + '</bpmn:subProcess>'.repeat(levels);
  }
  // Inside the process (or the decision), before its closing tag: the closing tag before the last one.
  const at = close > 0 ? text.lastIndexOf('</', close - 1) : text.length;
  setModelText(draft, text.slice(0, at) + inner + text.slice(at));
}
