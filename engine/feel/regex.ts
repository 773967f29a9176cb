// FEEL's regular-expression builtins (`matches`, `replace`, `split`) on RE2
// (npm re2js) instead of JavaScript's backtracking RegExp, so no pattern can
// take time exponential in its input (`matches(s, "^(a+)+$")`): RE2 matches
// in time linear in the input for a given pattern. feelin-guards.ts puts
// these in place of feelin's own. Behaviour follows feelin's: the pattern is
// read as a JavaScript pattern (re2js translates the syntax), flags s, m and
// i are honoured, x is "not implemented", any other flag, an invalid pattern
// or a wrong argument gives null; replacements use `$0`/`$&`, `$1`…`$99`,
// `$$`, `` $` `` and `$'`; split keeps empty pieces and captured groups as
// JavaScript's String.prototype.split does. What RE2 cannot do in linear
// time, back-references (`\1`) and lookahead (`(?=…)`), is an invalid
// pattern here.
import { RE2JS } from 're2js';
import { BoundedCache } from './bounded-cache.ts';
import { charLimitError, itemLimitError } from './eval-limits.ts';
import { activeBudget, SizeBudget } from './size-budget.ts';

type Compiled = RE2JS | null;

const patterns = new BoundedCache<Compiled>(1_000);

/**
 * Drops every compiled pattern. An evaluation stopped at its deadline may
 * have been stopped inside RE2 while it grew a pattern's lazily built
 * automaton; bounded.ts calls this then, so no half-built state is reused.
 */
export function forgetPatterns(): void {
  patterns.clear();
}

const FLAG_BITS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL };

function compile(pattern: string, flags: string): Compiled {
  let bits = 0;
  for (const flag of flags) {
    if (flag === 'x') throw new Error('not implemented: matches <x> flag');
    const bit = FLAG_BITS[flag];
    if (bit === undefined) return null;
    bits |= bit;
  }
  return patterns.getOrCreate(`${bits}/${pattern}`, () => {
    try {
      return RE2JS.compile(RE2JS.translateRegExp(pattern), bits);
    } catch {
      return null;
    }
  });
}

/** feelin's coercion of a string argument: a one-element list stands for its element; null when not a string. */
function asString(value: unknown): string | null {
  const unwrapped = Array.isArray(value) && value.length === 1 ? (value[0] as unknown) : value;
  return typeof unwrapped === 'string' ? unwrapped : null;
}

/** An optional string argument: absent or null is `fallback`; undefined when present but not a string. */
function optionalString(value: unknown, fallback: string): string | undefined {
  if (value === undefined || value === null) return fallback;
  return asString(value) ?? undefined;
}

/** The active evaluation's budget; outside an evaluation, a fresh one (these builtins are never unbounded). */
function budgetNow(): SizeBudget {
  return activeBudget() ?? new SizeBudget();
}

/** JavaScript's AdvanceStringIndex for a Unicode pattern: past a surrogate pair as one character. */
function advance(text: string, index: number): number {
  if (index + 1 >= text.length) return index + 1;
  const first = text.charCodeAt(index);
  if (first < 0xd800 || first > 0xdbff) return index + 1;
  const second = text.charCodeAt(index + 1);
  return second >= 0xdc00 && second <= 0xdfff ? index + 2 : index + 1;
}

export function matches(input: unknown, pattern: unknown, flags?: unknown): boolean | null {
  const text = asString(input);
  const source = asString(pattern);
  const flagText = optionalString(flags, '');
  if (text === null || source === null || flagText === undefined) return null;
  const regex = compile(source, flagText);
  return regex === null ? null : regex.test(text);
}

type Groups = (string | null)[];

/** JavaScript's GetSubstitution: the text replacing one match. */
function substitute(
  template: string,
  text: string,
  start: number,
  end: number,
  groups: Groups,
  named: Record<string, number> | undefined,
  group: (n: number) => string | null,
): string {
  let dollar = template.indexOf('$');
  if (dollar < 0) return template;
  let out = template.slice(0, dollar);
  while (dollar >= 0) {
    let next = dollar + 1;
    const ch = template[next];
    if (ch === '$') {
      out += '$';
      next++;
    } else if (ch === '&') {
      out += text.slice(start, end);
      next++;
    } else if (ch === '`') {
      out += text.slice(0, start);
      next++;
    } else if (ch === "'") {
      out += text.slice(end);
      next++;
    } else if (ch !== undefined && ch >= '0' && ch <= '9') {
      const second = template[next + 1];
      const two = second !== undefined && second >= '0' && second <= '9' ? Number(ch + second) : -1;
      if (two >= 1 && two <= groups.length) {
        out += groups[two - 1] ?? '';
        next += 2;
      } else if (Number(ch) >= 1 && Number(ch) <= groups.length) {
        out += groups[Number(ch) - 1] ?? '';
        next++;
      } else {
        out += '$';
      }
    } else if (ch === '<' && named !== undefined && template.indexOf('>', next) >= 0) {
      const close = template.indexOf('>', next);
      const index = named[template.slice(next + 1, close)];
      out += index === undefined ? '' : (group(index) ?? '');
      next = close + 1;
    } else {
      out += '$';
    }
    dollar = template.indexOf('$', next);
    out += template.slice(next, dollar < 0 ? template.length : dollar);
  }
  return out;
}

export function replace(input: unknown, pattern: unknown, replacement: unknown, flags?: unknown): string | null {
  const text = asString(input);
  const source = asString(pattern);
  const template = asString(replacement);
  const flagText = optionalString(flags, '');
  if (text === null || source === null || template === null || flagText === undefined) return null;
  const regex = compile(source, flagText);
  if (regex === null) return null;
  // feelin's reading of the replacement: `$0` is the whole match.
  const effective = template.split('$0').join('$&');
  const named = Object.keys(regex.namedGroups()).length > 0 ? regex.namedGroups() : undefined;
  const budget = budgetNow();
  const room = budget.maxChars - budget.chars;
  const matcher = regex.matcher(text);
  const count = regex.groupCount();
  let out = '';
  let copied = 0;
  let from = 0;
  while (from <= text.length && matcher.find(from)) {
    const start = matcher.start();
    const end = matcher.end();
    const groups: Groups = [];
    for (let g = 1; g <= count; g++) groups.push(matcher.group(g));
    out += text.slice(copied, start) + substitute(effective, text, start, end, groups, named, (g) => matcher.group(g));
    if (out.length > room) throw charLimitError(budget.maxChars, 'replace would build');
    copied = end;
    from = end === start ? advance(text, end) : end;
  }
  out += text.slice(copied);
  if (out.length > room) throw charLimitError(budget.maxChars, 'replace would build');
  return out;
}

export function split(input: unknown, delimiter: unknown): (string | null)[] | null {
  const text = asString(input);
  const source = asString(delimiter);
  if (text === null || source === null) return null;
  const regex = compile(source, '');
  if (regex === null) return null;
  const matcher = regex.matcher(text);
  if (text.length === 0) return matcher.find(0) && matcher.start() === 0 ? [] : [''];
  const budget = budgetNow();
  const room = budget.maxItems - budget.items;
  const count = regex.groupCount();
  const pieces: (string | null)[] = [];
  let piece = 0;
  let from = 0;
  while (from < text.length && matcher.find(from)) {
    const start = matcher.start();
    if (start >= text.length) break;
    const end = Math.min(matcher.end(), text.length);
    if (end === piece) {
      from = advance(text, start);
      continue;
    }
    pieces.push(text.slice(piece, start));
    for (let g = 1; g <= count; g++) pieces.push(matcher.group(g));
    if (pieces.length > room) throw itemLimitError(budget.maxItems, 'split would build');
    piece = end;
    from = end;
  }
  pieces.push(text.slice(piece));
  return pieces;
}
