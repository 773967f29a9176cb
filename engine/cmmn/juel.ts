// Conditions written in JUEL (`${…}`), which Camunda 7 and Flowable files
// use: the trivial forms — comparisons and boolean logic over variables,
// numbers, strings, true/false/null — are rewritten to the FEEL they mean;
// anything else (method calls, `empty`, ternaries, indexing) is refused with
// the sentence to show the modeller. docs/cmmn.md records the decision.

export type JuelResult = { ok: true; feel: string } | { ok: false; error: string };

const TOKEN =
  /\s*(?:(\d+(?:\.\d+)?)|('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")|([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)|(==|!=|<=|>=|&&|\|\||[<>()!]))/y;

const WORDS: Record<string, string> = {
  and: 'and',
  or: 'or',
  not: 'not',
  eq: '=',
  ne: '!=',
  lt: '<',
  gt: '>',
  le: '<=',
  ge: '>=',
  true: 'true',
  false: 'false',
  null: 'null',
};
const SYMBOLS: Record<string, string> = { '==': '=', '!=': '!=', '<=': '<=', '>=': '>=', '<': '<', '>': '>', '&&': 'and', '||': 'or', '(': '(', ')': ')' };

/** True when `text` is a JUEL expression (`${…}` or `#{…}`). */
export function isJuel(text: string): boolean {
  return /^[$#]\{[\s\S]*\}$/.test(text.trim());
}

/** Rewrites a trivial JUEL condition to FEEL, or says why it cannot. */
export function juelToFeel(text: string): JuelResult {
  const body = text.trim().slice(2, -1);
  const out: string[] = [];
  // `!x` / `not x` become `not(x)`: FEEL's not is a function over one operand.
  let pendingNot = 0;
  TOKEN.lastIndex = 0;
  let at = 0;
  while (at < body.length) {
    if (body.slice(at).trim() === '') break;
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(body);
    if (m === null) return refuse(text);
    at = TOKEN.lastIndex;
    const [, num, str, word, sym] = m;
    let piece: string;
    if (num !== undefined) piece = num;
    else if (str !== undefined) piece = JSON.stringify(str.slice(1, -1).replace(/\\(.)/g, '$1'));
    else if (word !== undefined) {
      if (word === 'empty' || word === 'div' || word === 'mod' || word === 'instanceof') return refuse(text);
      if (word === 'not') {
        pendingNot++;
        continue;
      }
      piece = WORDS[word] ?? word;
      if (/\.\s*$/.test(body.slice(0, at)) || body.slice(at).trimStart().startsWith('(')) return refuse(text);
    } else if (sym === '!') {
      pendingNot++;
      continue;
    } else piece = SYMBOLS[sym];
    if (pendingNot > 0) {
      // Only a plain operand may follow a negation; parenthesised forms are left to a FEEL rewrite by hand.
      if (num === undefined && str === undefined && word === undefined) return refuse(text);
      piece = `${'not('.repeat(pendingNot)}${piece}${')'.repeat(pendingNot)}`;
      pendingNot = 0;
    }
    out.push(piece);
  }
  if (pendingNot > 0 || out.length === 0) return refuse(text);
  return { ok: true, feel: out.join(' ') };
}

function refuse(text: string): JuelResult {
  return {
    ok: false,
    error:
      `'${text.trim()}' is a JUEL expression Orca cannot translate: only comparisons and and/or/not over variables, numbers and strings are rewritten. ` +
      'Write the condition in FEEL instead (without ${ }), for example amount > 100 and status = "open".',
  };
}
