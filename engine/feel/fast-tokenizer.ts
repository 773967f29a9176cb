// Tokenizer for the small slice of FEEL the fast path understands: ASCII
// names, the keywords true/false/null/and/or/not, numbers, double-quoted
// strings, comparison operators, brackets, commas, `.` and `..`. It returns
// undefined for anything else (comments, unicode names, arithmetic, other
// keywords …), so the source goes to feelin instead of being guessed at.

export type Token =
  | { kind: 'name'; text: string }
  | { kind: 'keyword'; text: FastKeyword }
  | { kind: 'number'; text: string }
  | { kind: 'string'; text: string }
  | { kind: 'punct'; text: Punct };

export type FastKeyword = 'true' | 'false' | 'null' | 'and' | 'or' | 'not';
export type Punct = '=' | '!=' | '<' | '<=' | '>' | '>=' | '(' | ')' | '[' | ']' | ',' | '.' | '..' | '-';

const FAST_KEYWORDS: ReadonlySet<string> = new Set<FastKeyword>(['true', 'false', 'null', 'and', 'or', 'not']);

/**
 * Words FEEL's grammar gives a meaning of its own. A source using one of them
 * as a name is left to feelin rather than risk reading it differently.
 */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  ...FAST_KEYWORDS,
  'in',
  'for',
  'return',
  'if',
  'then',
  'else',
  'some',
  'every',
  'satisfies',
  'between',
  'instance',
  'of',
  'function',
  'external',
  // lezer-feel tokenizes these specially (`date and time`, temporal literals)
  'date',
  'time',
  'duration',
]);

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isNameStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

function isNamePart(c: number): boolean {
  return isNameStart(c) || isDigit(c);
}

/** True when `text` is one plain ASCII FEEL name such as `amount` or `order_2`. */
export function isPlainName(text: string): boolean {
  if (text.length === 0 || !isNameStart(text.charCodeAt(0))) return false;
  for (let i = 1; i < text.length; i++) if (!isNamePart(text.charCodeAt(i))) return false;
  return true;
}

// FEEL (lezer-feel) treats a much larger set of characters as name parts
// (unicode letters, `?`, `'`, `/`, `*`, `+`, …); any of them directly after a
// token means the source is outside the fast slice.
function endsCleanly(source: string, i: number): boolean {
  if (i >= source.length) return true;
  const c = source.charCodeAt(i);
  return !isNamePart(c) && c < 128 && c !== 63 /* ? */ && c !== 39; /* ' */
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/** Splits `source` into fast-path tokens, or returns undefined when it is not plainly tokenizable. */
export function tokenize(source: string): Token[] | undefined {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    const start = i;
    if (isNameStart(c)) {
      while (i < source.length && isNamePart(source.charCodeAt(i))) i++;
      if (!endsCleanly(source, i)) return undefined;
      const text = source.slice(start, i);
      if (FAST_KEYWORDS.has(text)) tokens.push({ kind: 'keyword', text: text as FastKeyword });
      else if (RESERVED_WORDS.has(text)) return undefined;
      else tokens.push({ kind: 'name', text });
      continue;
    }
    const negative = c === 45 /* - */ && (isDigit(source.charCodeAt(i + 1)) || (source.charCodeAt(i + 1) === 46 && isDigit(source.charCodeAt(i + 2))));
    if (isDigit(c) || negative || (c === 46 /* . */ && isDigit(source.charCodeAt(i + 1)) && source.charCodeAt(i - 1) !== 46)) {
      if (negative) i++;
      while (isDigit(source.charCodeAt(i))) i++;
      if (source.charCodeAt(i) === 46 && isDigit(source.charCodeAt(i + 1))) {
        i++;
        while (isDigit(source.charCodeAt(i))) i++;
      }
      // `1.` or `1.2.3` or `1e3`: feelin has its own (surprising) readings of these
      if (source.charCodeAt(i) === 46 && source.charCodeAt(i + 1) !== 46) return undefined;
      if (!endsCleanly(source, i)) return undefined;
      tokens.push({ kind: 'number', text: source.slice(start, i) });
      continue;
    }
    if (c === 34 /* " */) {
      i++;
      for (;;) {
        if (i >= source.length) return undefined;
        const d = source.charCodeAt(i);
        // a raw line break is a syntax error in feelin
        if (d === 10 || d === 13) return undefined;
        if (d === 92 /* \ */) {
          const escaped = source.charCodeAt(i + 1);
          if (escaped === 10 || escaped === 13) return undefined;
          i += 2;
          continue;
        }
        i++;
        if (d === 34) break;
      }
      tokens.push({ kind: 'string', text: source.slice(start, i) });
      continue;
    }
    const two = source.slice(i, i + 2);
    if (two === '!=' || two === '<=' || two === '>=' || two === '..') {
      tokens.push({ kind: 'punct', text: two });
      i += 2;
      continue;
    }
    const one = source[i];
    if (one === '=' || one === '<' || one === '>' || one === '(' || one === ')' || one === '[' || one === ']' || one === ',' || one === '.' || one === '-') {
      tokens.push({ kind: 'punct', text: one });
      i++;
      continue;
    }
    return undefined;
  }
  return tokens;
}
