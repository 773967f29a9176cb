// Camunda FEEL extensions that real models use and feelin lacks, mapped onto
// what feelin does have. Four of them:
//
// - `is defined(value)`: a Camunda built-in. feelin already parses the
//   two-word name as a function name; the function itself is put into the
//   evaluation context, where feelin resolves names with spaces (over a
//   variable of that name: in Camunda, functions and variables do not share
//   names). Only sources that call it get it, and they skip the fast path.
//   Semantics of FEEL-scala 1.17+ (Camunda 8.3 and later): false for null as
//   well as for a variable or context entry that does not exist, true for
//   anything else. Earlier FEEL-scala versions returned true for null; Camunda
//   8 models are written against the current behaviour.
//
// - `fromAi(value, description, type, schema, options)`: Camunda 8.8's
//   marker for a tool parameter of an AI agent (the agent reads the model to
//   describe its tools). At run time it is its first argument; put into the
//   context as `is defined` is.
//
// - Backtick names (`` `name with space` ``, `` `steady-state-hypothesis` ``):
//   feelin's grammar has no backticks, and a bare `a-b` means `a - b` unless
//   the parse-time context happens to hold the key. So each backtick name is
//   rewritten: as a path segment (`x.`a-b``) into a call of a helper that
//   reads the entry exactly as feelin's path expression does (lists project);
//   as a context key (`{`a b`: 1}`) into a string key; anywhere else into a
//   unique plain identifier, bound in the evaluation context to the variable
//   of that name (null when there is none). Declarations (`for `x` in …`,
//   function parameters) use the same identifier, so local scoping is feelin's.
//
// - String literals spanning lines: FEEL (and Zeebe) allow a raw line break
//   inside "…", feelin's grammar does not. Each raw CR or LF inside a string
//   literal is written as its escape (`\n`, `\r`), which feelin reads back as
//   the same character.
//
// Syntax errors are always found in the original source: backtick names are
// masked by identifiers of the same length, so positions and snippets in a
// message are the modeller's.
import { FeelFunction, parseExpression, parseUnaryTests } from 'feelin';
import type { FeelContext } from './types.ts';

type LezerTree = ReturnType<typeof parseExpression>;

/** What a source needs beyond plain feelin; absent when feelin runs it as written. */
export interface Extensions {
  /** The source feelin evaluates. */
  readonly executable: string;
  /** The evaluation context feelin gets: the caller's plus the helpers and backtick bindings. */
  extend(context: FeelContext): FeelContext;
}

export type Prepared = { ok: true; masked: string; extensions?: Extensions } | { ok: false; syntaxError: string };

/** Name of the helper that reads a backtick path segment; not a name a model can use by accident. */
const PATH_HELPER = '__orca_path';
const NAME_PREFIX = '__orca_name_';
const IS_DEFINED_NAME = 'is defined';
const IS_DEFINED_CALL = /\bis\s+defined\s*\(/;

const isDefined = new FeelFunction((...args: unknown[]) => (args.length === 1 ? args[0] !== null && args[0] !== undefined : null), ['value']);

const fromAi = new FeelFunction((...args: unknown[]) => args[0] ?? null, ['value', 'description', 'type', 'schema', 'options']);

/** Built-ins feelin lacks, each put into the context of the sources that call it. */
const BUILTINS: readonly { call: RegExp; name: string; fn: FeelFunction }[] = [
  { call: IS_DEFINED_CALL, name: IS_DEFINED_NAME, fn: isDefined },
  { call: /\bfromAi\s*\(/, name: 'fromAi', fn: fromAi },
];

type Builtins = readonly (typeof BUILTINS)[number][];

function isContextValue(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function entry(target: unknown, key: string): unknown {
  return isContextValue(target) && Object.hasOwn(target, key) ? (target[key] ?? null) : null;
}

// A path on a list reads the entry of each element, as feelin's PathExpression does.
const readPath = new FeelFunction(
  (target: unknown, key: unknown) => {
    if (typeof key !== 'string') return null;
    return Array.isArray(target) ? target.map((element) => entry(element, key)) : entry(target, key);
  },
  ['target', 'key'],
);

interface Span {
  from: number;
  to: number;
  name: string;
}

/** Backtick names outside string literals and comments; an error for an unterminated or empty one. */
function scanBackticks(source: string): { spans: Span[] } | { error: string } {
  const spans: Span[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i];
    if (ch === '"') {
      for (i++; i < source.length && source[i] !== '"'; i++) if (source[i] === '\\') i++;
      i++;
    } else if (ch === '/' && source[i + 1] === '/') {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (ch === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end < 0 ? source.length : end + 2;
    } else if (ch === '`') {
      const end = source.indexOf('`', i + 1);
      if (end < 0) return { error: `Unterminated backtick name at character ${i + 1} near '${source.slice(i, i + 20)}'` };
      if (end === i + 1) return { error: `Empty backtick name at character ${i + 1}` };
      spans.push({ from: i, to: end + 1, name: source.slice(i + 1, end) });
      i = end + 1;
    } else {
      i++;
    }
  }
  return { spans };
}

/** Raw line breaks inside string literals (outside comments), as offsets into `source`. */
function lineBreaksInStrings(source: string): number[] {
  const at: number[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i];
    if (ch === '"') {
      for (i++; i < source.length && source[i] !== '"'; i++) {
        if (source[i] === '\\') i++;
        else if (source[i] === '\n' || source[i] === '\r') at.push(i);
      }
      i++;
    } else if (ch === '/' && source[i + 1] === '/') {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (ch === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end < 0 ? source.length : end + 2;
    } else if (ch === '`') {
      const end = source.indexOf('`', i + 1);
      i = end < 0 ? source.length : end + 1;
    } else {
      i++;
    }
  }
  return at;
}

/** `source` with the characters at `at` replaced by `replace(char)`. */
function replaceAt(source: string, at: readonly number[], replace: (char: string) => string): string {
  let out = '';
  let last = 0;
  for (const i of at) {
    out += source.slice(last, i) + replace(source[i] as string);
    last = i + 1;
  }
  return out + source.slice(last);
}

/** `source` with each span replaced by `replace(span)`. */
function replaceSpans(source: string, spans: readonly Span[], replace: (span: Span) => string): string {
  let text = '';
  let last = 0;
  for (const span of spans) {
    text += source.slice(last, span.from) + replace(span);
    last = span.to;
  }
  return text + source.slice(last);
}

interface Edit {
  from: number;
  to: number;
  text: string;
}

function applyEdits(text: string, edits: Edit[]): string {
  // Stable by position: of two insertions at one place, the outer (seen first) goes first.
  const sorted = edits.map((edit, order) => ({ edit, order })).sort((a, b) => a.edit.from - b.edit.from || a.order - b.order);
  let out = '';
  let last = 0;
  for (const { edit } of sorted) {
    out += text.slice(last, edit.from) + edit.text;
    last = edit.to;
  }
  return out + text.slice(last);
}

/**
 * The executable source for a source with backtick names: each name becomes
 * a placeholder identifier, then the parse tree tells path segments and
 * context keys apart from names that are looked up in scope.
 */
function rewriteBackticks(
  source: string,
  spans: readonly Span[],
  parse: (text: string) => LezerTree,
): { executable: string; bindings: Map<string, string> } | { error: string } {
  const ids = new Map<string, string>();
  for (const span of spans) if (!ids.has(span.name)) ids.set(span.name, `${NAME_PREFIX}${ids.size}`);
  const placeholders = new Map([...ids].map(([name, id]) => [id, name] as const));
  const text = replaceSpans(source, spans, (span) => ids.get(span.name) as string);
  const tree = parse(text);
  const edits: Edit[] = [];
  const keys = new Set<string>();
  const looked = new Set<string>();
  tree.iterate({
    enter(ref) {
      if (ref.type.isSkipped) return false;
      if (ref.name !== 'Identifier') return undefined;
      const name = placeholders.get(text.slice(ref.from, ref.to));
      if (name === undefined) return undefined;
      const parent = ref.node.parent;
      if (parent?.name === 'PathName' && parent.parent?.name === 'PathExpression') {
        const path = parent.parent;
        const base = path.firstChild;
        if (base) {
          edits.push({ from: path.from, to: path.from, text: `${PATH_HELPER}(` });
          edits.push({ from: base.to, to: path.to, text: `, ${JSON.stringify(name)})` });
        }
        return undefined;
      }
      if (parent?.name === 'Name' && parent.parent?.name === 'Key') {
        keys.add(name);
        edits.push({ from: parent.from, to: parent.to, text: JSON.stringify(name) });
        return undefined;
      }
      looked.add(name);
      return undefined;
    },
  });
  const both = [...keys].filter((name) => looked.has(name));
  if (both.length > 0) {
    return {
      error: `the backtick name \`${both[0]}\` is both a context key and a variable in this expression; Orca reads backtick variables from the instance's variables, not from entries of a context written in the expression, so give that entry a name without special characters`,
    };
  }
  const bindings = new Map<string, string>();
  for (const name of looked) bindings.set(ids.get(name) as string, name);
  return { executable: applyEdits(text, edits), bindings };
}

function extensions(executable: string, bindings: ReadonlyMap<string, string>, builtins: Builtins, needsPath: boolean): Extensions {
  return {
    executable,
    extend(context: FeelContext): FeelContext {
      const out: FeelContext = { ...context };
      for (const [id, name] of bindings) out[id] = Object.hasOwn(context, name) ? (context[name] ?? null) : null;
      if (needsPath) out[PATH_HELPER] = readPath;
      for (const builtin of builtins) out[builtin.name] = builtin.fn;
      return out;
    },
  };
}

/**
 * Prepares `source` for feelin: the masked text to check for syntax errors
 * (same length as `source`) and, when the source uses an extension, the
 * executable text and the context it needs.
 */
export function prepare(source: string, kind: 'expression' | 'unaryTests'): Prepared {
  const breaks = lineBreaksInStrings(source);
  if (breaks.length === 0) return prepareEscaped(source, source, kind);
  const escaped = replaceAt(source, breaks, (char) => (char === '\n' ? '\\n' : '\\r'));
  const prepared = prepareEscaped(source, escaped, kind);
  if (!prepared.ok) return prepared;
  const extensions = prepared.extensions ?? plainExtensions(escaped);
  // A space parses as the escaped line break does, and keeps the length.
  return { ok: true, masked: replaceAt(prepared.masked, breaks, () => ' '), extensions };
}

function plainExtensions(executable: string): Extensions {
  return { executable, extend: (context) => context };
}

/** prepare() for `escaped`, which is `source` with its string literals' line breaks escaped (or `source` itself). */
function prepareEscaped(source: string, escaped: string, kind: 'expression' | 'unaryTests'): Prepared {
  const builtins = BUILTINS.filter((builtin) => builtin.call.test(escaped));
  const scanned = escaped.includes('`') ? scanBackticks(escaped) : { spans: [] };
  if ('error' in scanned) return { ok: false, syntaxError: scanned.error };
  if (scanned.spans.length === 0) {
    return builtins.length > 0 ? { ok: true, masked: source, extensions: extensions(escaped, new Map(), builtins, false) } : { ok: true, masked: source };
  }
  // Same length, so the tree's positions are the source's.
  const masked = replaceSpans(source, source === escaped ? scanned.spans : (scanBackticks(source) as { spans: Span[] }).spans, (span) =>
    '_'.repeat(span.to - span.from),
  );
  const parse = (text: string): LezerTree => (kind === 'expression' ? parseExpression(text, {}, undefined) : parseUnaryTests(text, {}, undefined));
  const rewritten = rewriteBackticks(escaped, scanned.spans, parse);
  if ('error' in rewritten) return { ok: false, syntaxError: rewritten.error };
  const needsPath = rewritten.executable.includes(`${PATH_HELPER}(`);
  return { ok: true, masked, extensions: extensions(rewritten.executable, rewritten.bindings, builtins, needsPath) };
}
