// Recursive-descent parser for the fast FEEL slice: comparisons between
// literals and paths, combined with and/or/not(…), and simple DMN unary tests
// (`< 5`, `"gold"`, `[1..10]`, `-`, comma lists, `not(…)`). Anything outside
// that grammar returns undefined and is left to feelin. Literal values are
// read exactly as feelin reads them, so a literal means the same on both paths.
import { tokenize, type Token } from './fast-tokenizer.ts';

export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

export type Literal = { kind: 'literal'; token: 'number' | 'string' | 'boolean' | 'null'; text: string; value: number | string | boolean | null };
export type Path = { kind: 'path'; names: readonly string[] };
export type Operand = Literal | Path;
export type Expr =
  | Operand
  | { kind: 'compare'; op: CompareOp; left: Expr; right: Expr }
  | { kind: 'and' | 'or'; left: Expr; right: Expr }
  | { kind: 'not'; operand: Expr }
  | { kind: 'paren'; inner: Expr };

export type IntervalOpen = '[' | '(' | ']';
export type IntervalClose = ']' | ')' | '[';
export type UnaryTest =
  | { kind: 'compare'; op: CompareOp; operand: Operand }
  | { kind: 'interval'; open: IntervalOpen; close: IntervalClose; start: Operand; end: Operand }
  | { kind: 'value'; operand: Operand };
export type UnaryTestsAst = { kind: 'wildcard' } | { kind: 'tests'; negated: boolean; tests: readonly UnaryTest[] };

const COMPARE_OPS: ReadonlySet<string> = new Set<CompareOp>(['=', '!=', '<', '<=', '>', '>=']);

/** feelin's reading of a numeric literal (parseInt unless there is a dot). */
function numberValue(text: string): number {
  return text.includes('.') ? parseFloat(text) : parseInt(text);
}

/** feelin's reading of a string literal, escapes included (a port of its parseString). */
export function stringValue(text: string): string {
  let str = text;
  if (str.startsWith('"')) str = str.slice(1);
  if (str.endsWith('"')) str = str.slice(0, -1);
  return str.replace(
    /(\\")|(\\\\)|(\\n)|(\\r)|(\\t)|(\\u[a-fA-F0-9]{5,6})|((?:\\u[a-fA-F0-9]{1,4})+)/gi,
    (substring: string, quotes?: string, backslash?: string, newline?: string, carriageReturn?: string, tab?: string, codePoint?: string) => {
      if (quotes) return '"';
      if (newline) return '\n';
      if (carriageReturn) return '\r';
      if (tab) return '\t';
      if (backslash) return '\\';
      if (codePoint) return String.fromCodePoint(parseInt(codePoint.slice(2), 16));
      const codes: number[] = [];
      for (const match of substring.matchAll(/\\u([a-fA-F0-9]+)/gi)) codes.push(parseInt(match[1], 16));
      return String.fromCharCode(...codes);
    },
  );
}

class Parser {
  private pos = 0;
  constructor(private readonly tokens: readonly Token[]) {}

  get done(): boolean {
    return this.pos >= this.tokens.length;
  }

  peek(): Token | undefined {
    return this.tokens[this.pos];
  }

  isPunct(text: string): boolean {
    const t = this.tokens[this.pos];
    return t !== undefined && t.kind === 'punct' && t.text === text;
  }

  isKeyword(text: string): boolean {
    const t = this.tokens[this.pos];
    return t !== undefined && t.kind === 'keyword' && t.text === text;
  }

  next(): Token | undefined {
    return this.tokens[this.pos++];
  }

  expression(): Expr | undefined {
    let left = this.conjunction();
    while (left && this.isKeyword('or')) {
      this.pos++;
      const right = this.conjunction();
      left = right && { kind: 'or', left, right };
    }
    return left;
  }

  conjunction(): Expr | undefined {
    let left = this.comparison();
    while (left && this.isKeyword('and')) {
      this.pos++;
      const right = this.comparison();
      left = right && { kind: 'and', left, right };
    }
    return left;
  }

  comparison(): Expr | undefined {
    const left = this.primary();
    const op = this.peek();
    if (!left || op?.kind !== 'punct' || !COMPARE_OPS.has(op.text)) return left;
    this.pos++;
    const right = this.primary();
    return right && { kind: 'compare', op: op.text as CompareOp, left, right };
  }

  primary(): Expr | undefined {
    if (this.isPunct('(')) {
      this.pos++;
      const inner = this.expression();
      if (!inner || !this.isPunct(')')) return undefined;
      this.pos++;
      return { kind: 'paren', inner };
    }
    if (this.isKeyword('not')) {
      this.pos++;
      if (!this.isPunct('(')) return undefined;
      this.pos++;
      const operand = this.expression();
      if (!operand || !this.isPunct(')')) return undefined;
      this.pos++;
      return { kind: 'not', operand };
    }
    return this.operand();
  }

  operand(): Operand | undefined {
    const t = this.next();
    if (!t) return undefined;
    switch (t.kind) {
      case 'number':
        return { kind: 'literal', token: 'number', text: t.text, value: numberValue(t.text) };
      case 'string':
        return { kind: 'literal', token: 'string', text: t.text, value: stringValue(t.text) };
      case 'keyword':
        if (t.text === 'true' || t.text === 'false') return { kind: 'literal', token: 'boolean', text: t.text, value: t.text === 'true' };
        if (t.text === 'null') return { kind: 'literal', token: 'null', text: t.text, value: null };
        return undefined;
      case 'name': {
        const names = [t.text];
        while (this.isPunct('.')) {
          this.pos++;
          const part = this.next();
          if (part?.kind !== 'name') return undefined;
          names.push(part.text);
        }
        return { kind: 'path', names };
      }
      default:
        return undefined;
    }
  }

  unaryTest(): UnaryTest | undefined {
    const t = this.peek();
    if (t?.kind === 'punct' && COMPARE_OPS.has(t.text)) {
      this.pos++;
      const operand = this.operand();
      return operand && { kind: 'compare', op: t.text as CompareOp, operand };
    }
    if (t?.kind === 'punct' && (t.text === '[' || t.text === '(' || t.text === ']')) {
      this.pos++;
      const start = this.operand();
      if (!start || !this.isPunct('..')) return undefined;
      this.pos++;
      const end = this.operand();
      const close = this.next();
      if (!end || close?.kind !== 'punct' || (close.text !== ']' && close.text !== ')' && close.text !== '[')) return undefined;
      return { kind: 'interval', open: t.text, close: close.text, start, end };
    }
    const operand = this.operand();
    return operand && { kind: 'value', operand };
  }

  unaryTestList(): UnaryTest[] | undefined {
    const tests: UnaryTest[] = [];
    for (;;) {
      const test = this.unaryTest();
      if (!test) return undefined;
      tests.push(test);
      if (!this.isPunct(',')) return tests;
      this.pos++;
    }
  }
}

/** Parses `source` as a fast-slice FEEL expression, or returns undefined. */
export function parseFastExpression(source: string): Expr | undefined {
  const tokens = tokenize(source);
  if (!tokens || tokens.length === 0) return undefined;
  const parser = new Parser(tokens);
  const expr = parser.expression();
  return expr && parser.done ? expr : undefined;
}

/** Parses `source` as fast-slice DMN unary tests, or returns undefined. */
export function parseFastUnaryTests(source: string): UnaryTestsAst | undefined {
  const tokens = tokenize(source);
  if (!tokens || tokens.length === 0) return undefined;
  if (tokens.length === 1 && tokens[0].kind === 'punct' && tokens[0].text === '-') return { kind: 'wildcard' };
  const parser = new Parser(tokens);
  let negated = false;
  if (parser.isKeyword('not')) {
    parser.next();
    if (!parser.isPunct('(')) return undefined;
    parser.next();
    negated = true;
  }
  const tests = parser.unaryTestList();
  if (!tests) return undefined;
  if (negated) {
    if (!parser.isPunct(')')) return undefined;
    parser.next();
  }
  return parser.done ? { kind: 'tests', negated, tests } : undefined;
}
