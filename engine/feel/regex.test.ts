// FEEL's regular-expression builtins on RE2: linear in the input (the
// patterns of issue 23 answer at once) and, for patterns both engines take,
// the same answers as feelin's own implementation on JavaScript's RegExp
// (reproduced here as the reference), reached through the engine's door.
import { describe, expect, it } from 'vitest';
import { evaluateFeel } from './index.ts';

function feel(source: string, context: Record<string, unknown>): unknown {
  const result = evaluateFeel(source, context);
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

// feelin 8.2's builtins, as they were: RegExp with the u flag.
const reference = {
  matches: (input: string, pattern: string, flags = '') => new RegExp(pattern, `u${flags}`).test(input),
  replace: (input: string, pattern: string, replacement: string, flags = '') =>
    input.replace(new RegExp(pattern, `ug${flags}`), replacement.replace(/\$0/g, '$$&')),
  split: (input: string, delimiter: string) => input.split(new RegExp(delimiter, 'u')),
};

const MATCHES: [string, string, string?][] = [
  ['abc', 'b'],
  ['abc', '^b'],
  ['abc', '^a.c$'],
  ['ABC', 'abc', 'i'],
  ['a\nb', '^b$'],
  ['a\nb', '^b$', 'm'],
  ['a\nb', 'a.b'],
  ['a\nb', 'a.b', 's'],
  ['order-123', '^[a-z]+-\\d{3}$'],
  ['Grüße', '^\\p{L}+$'],
  ['😀x', '^.x$'],
  ['foo@example.com', '^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$'],
  ['2024-01-31', '^(?<y>\\d{4})-(?<m>\\d{2})-(?<d>\\d{2})$'],
  ['word boundary', '\\bbound'],
  ['', '^$'],
];

const REPLACES: [string, string, string, string?][] = [
  ['abc', 'b', 'X'],
  ['aaa', 'a', 'b'],
  ['abc', '', '-'],
  ['a1b22c333', '\\d+', '<$0>'],
  ['a1b22c333', '(\\d)(\\d)?', '[$2$1]'],
  ['John Smith', '(\\w+)\\s(\\w+)', '$2, $1'],
  ['price: 5', '\\d', '$$'],
  ['abc', 'b', "[$`|$&|$']"],
  ['ABCabc', 'b', '_', 'i'],
  ['😀😀', '', '.'],
  ['line1\nline2', '^l', 'L', 'm'],
  ['x', 'x', '$1'],
  ['2024-01-31', '(?<y>\\d{4})-(?<m>\\d{2})-(?<d>\\d{2})', '$<d>.$<m>.$<y>'],
];

const SPLITS: [string, string][] = [
  ['a,b,,c', ','],
  ['a, b ,c', '\\s*,\\s*'],
  ['abc', ''],
  ['a1b2c3', '\\d'],
  ['a1b2c', '(\\d)'],
  ['', ','],
  ['', ''],
  [',a,', ','],
  ['😀a😀', ''],
  ['aXbxc', 'x'],
];

describe('matches, replace and split on RE2', () => {
  it.each(MATCHES)('matches(%j, %j, %j) as feelin had it', (input, pattern, flags) => {
    const source = flags === undefined ? 'matches(input, pattern)' : 'matches(input, pattern, flags)';
    expect(feel(source, { input, pattern, flags })).toBe(reference.matches(input, pattern, flags));
  });

  it.each(REPLACES)('replace(%j, %j, %j, %j) as feelin had it', (input, pattern, replacement, flags) => {
    const source = flags === undefined ? 'replace(input, pattern, replacement)' : 'replace(input, pattern, replacement, flags)';
    expect(feel(source, { input, pattern, replacement, flags })).toBe(reference.replace(input, pattern, replacement, flags));
  });

  it.each(SPLITS)('split(%j, %j) as feelin had it', (input, delimiter) => {
    expect(feel('split(input, delimiter)', { input, delimiter })).toEqual(reference.split(input, delimiter));
  });

  it('catastrophic backtracking patterns answer at once', () => {
    const input = `${'a'.repeat(10_000)}!`;
    expect(feel('matches(input, "^(a+)+$")', { input })).toBe(false);
    expect(feel('matches(input, "^(a|aa)+$")', { input })).toBe(false);
    expect(feel('replace(input, "(a*)*b", "x")', { input })).toBe(input);
    expect(feel('count(split(input, "(a+)+b"))', { input })).toBe(1);
  });

  it('like feelin: an invalid pattern, an unknown flag or a wrong argument gives null; the x flag is not implemented', () => {
    expect(feel('matches("abc", "(")', {})).toBeNull();
    expect(feel('matches("abc", "b", "q")', {})).toBeNull();
    expect(feel('matches(1, "b")', {})).toBeNull();
    expect(feel('replace("abc", "b")', {})).toBeNull();
    expect(feel('matches(["abc"], "b")', {})).toBe(true);
    const result = evaluateFeel('matches("abc", "b", "x")', {});
    expect(!result.ok && result.error).toMatch(/not implemented: matches <x> flag/);
  });

  it('what RE2 cannot do in linear time is an invalid pattern: back-references and lookahead give null', () => {
    expect(feel('matches("abab", "(ab)\\\\1")', {})).toBeNull();
    expect(feel('matches("abc", "a(?=b)")', {})).toBeNull();
  });

  it('replace stops at the string limit instead of building a huge string', () => {
    const result = evaluateFeel('replace(input, "", filler)', { input: 'x'.repeat(5_000), filler: 'y'.repeat(5_000) });
    expect(!result.ok && result.error).toMatch(/replace would build more than \d+ characters of strings \(the string limit of one evaluation\)/);
  });
});
