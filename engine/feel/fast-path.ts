// Compiles the simple shapes of FEEL (see fast-parser.ts) to plain closures.
// A source gets a fast form only when the fast parser accepts it AND its
// reading matches feelin's parse tree node for node; at evaluation time the
// closure throws BAIL whenever a value or context is outside what
// fast-semantics.ts mirrors, and the caller then asks feelin. So a fast
// closure either returns feelin's answer or declines to answer.
import { evaluate as feelinEvaluate } from 'feelin';
import type { parseExpression, parseUnaryTests } from 'feelin';
import { BoundedCache } from './bounded-cache.ts';
import { parseFastExpression, parseFastUnaryTests, type Expr, type Operand, type UnaryTest } from './fast-parser.ts';
import { expressionSignature, treeSignature, unaryTestsSignature } from './fast-signature.ts';
import {
  asResult,
  bail,
  feelAnd,
  feelEquals,
  feelNot,
  feelOr,
  feelOrder,
  intervalIncludes,
  isPlainObject,
  lookupProperty,
  lookupVariable,
  NameGuard,
} from './fast-semantics.ts';

type Context = Record<string, unknown>;
type Eval = (ctx: Context) => unknown;
type LezerTree = ReturnType<typeof parseExpression> | ReturnType<typeof parseUnaryTests>;

/** Evaluates against a context, or throws BAIL when feelin has to decide. */
export type FastExpression = (context: Context) => unknown;
/** Tests an input (the `?` of the unary tests), or throws BAIL when feelin has to decide. */
export type FastUnaryTests = (input: unknown, context: Context) => boolean;

// A missing variable that shares its name with a builtin (count, sum, …)
// evaluates to that function in feelin. Asking feelin is the only reliable
// list of builtins; the answers are memoised because they never change.
const builtinNames = new BoundedCache<boolean>(1_000);

function isBuiltinName(name: string): boolean {
  return builtinNames.getOrCreate(name, () => {
    try {
      return feelinEvaluate(name, {}).value !== null;
    } catch {
      return true;
    }
  });
}

class Compiler {
  readonly guard: NameGuard;

  constructor(words: Iterable<string>) {
    this.guard = new NameGuard(words);
  }

  operand(operand: Operand): Eval {
    if (operand.kind === 'literal') {
      const value = operand.value;
      return () => value;
    }
    const [root, ...rest] = operand.names;
    const builtin = isBuiltinName(root);
    const guard = this.guard;
    if (rest.length === 0) return (ctx) => lookupVariable(ctx, root, builtin);
    if (rest.length === 1) {
      const prop = rest[0];
      return (ctx) => lookupProperty(lookupVariable(ctx, root, builtin), prop, guard);
    }
    return (ctx) => {
      let value = lookupVariable(ctx, root, builtin);
      for (const prop of rest) value = lookupProperty(value, prop, guard);
      return value;
    };
  }

  expr(expr: Expr): Eval {
    switch (expr.kind) {
      case 'literal':
      case 'path':
        return this.operand(expr);
      case 'paren':
        return this.expr(expr.inner);
      case 'not': {
        const operand = this.expr(expr.operand);
        return (ctx) => feelNot(operand(ctx));
      }
      case 'and': {
        const left = this.expr(expr.left);
        const right = this.expr(expr.right);
        return (ctx) => feelAnd(left(ctx), right(ctx));
      }
      case 'or': {
        const left = this.expr(expr.left);
        const right = this.expr(expr.right);
        return (ctx) => feelOr(left(ctx), right(ctx));
      }
      case 'compare': {
        const left = this.expr(expr.left);
        const right = this.expr(expr.right);
        const op = expr.op;
        switch (op) {
          case '=':
            return (ctx) => feelEquals(left(ctx), right(ctx));
          case '!=':
            return (ctx) => {
              const equal = feelEquals(left(ctx), right(ctx));
              return equal === null ? null : !equal;
            };
          default:
            return (ctx) => feelOrder(op, left(ctx), right(ctx));
        }
      }
    }
  }

  unaryTest(test: UnaryTest): (input: unknown, ctx: Context) => unknown {
    switch (test.kind) {
      case 'compare': {
        const operand = this.operand(test.operand);
        const op = test.op;
        switch (op) {
          case '=':
            return (input, ctx) => feelEquals(input, operand(ctx));
          case '!=':
            return (input, ctx) => {
              const equal = feelEquals(input, operand(ctx));
              return equal === null ? null : !equal;
            };
          default:
            return (input, ctx) => feelOrder(op, input, operand(ctx));
        }
      }
      case 'interval': {
        const start = this.operand(test.start);
        const end = this.operand(test.end);
        const startBracket = test.open === '[';
        const endBracket = test.close === ']';
        return (input, ctx) => intervalIncludes(startBracket, endBracket, start(ctx), end(ctx), input);
      }
      case 'value': {
        const operand = test.operand;
        // a boolean literal as a test is strict identity with the input in feelin
        if (operand.kind === 'literal' && operand.token === 'boolean') {
          const literal = operand.value;
          return (input) => input === literal;
        }
        const value = this.operand(operand);
        return (input, ctx) => {
          const expected = value(ctx);
          // a boolean-valued variable is the test's answer by itself
          if (typeof expected === 'boolean') return expected;
          return feelEquals(expected, input);
        };
      }
    }
  }
}

function wordsOf(source: string): string[] {
  return source.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [];
}

function sameReading(tree: LezerTree, source: string, expected: string): boolean {
  try {
    return treeSignature(tree, source) === expected;
  } catch {
    return false;
  }
}

/**
 * The fast form of expression `source` (whose feelin parse tree is `tree`), or
 * undefined when the source is outside the fast slice or feelin reads it
 * differently.
 */
export function compileFastExpression(source: string, tree: LezerTree): FastExpression | undefined {
  try {
    const ast = parseFastExpression(source);
    if (!ast || !sameReading(tree, source, expressionSignature(ast))) return undefined;
    const compiler = new Compiler(wordsOf(source));
    const guard = compiler.guard;
    const root = compiler.expr(ast);
    return (ctx) => {
      if (!isPlainObject(ctx) || !guard.safe(ctx)) bail();
      return asResult(root(ctx));
    };
  } catch {
    // e.g. an escape feelin cannot read either: feelin reports it properly
    return undefined;
  }
}

/** The fast form of unary tests `source`, or undefined (see compileFastExpression). */
export function compileFastUnaryTests(source: string, tree: LezerTree): FastUnaryTests | undefined {
  try {
    const ast = parseFastUnaryTests(source);
    if (!ast || !sameReading(tree, source, unaryTestsSignature(ast))) return undefined;
    if (ast.kind === 'wildcard') return () => true;
    const compiler = new Compiler(wordsOf(source));
    const guard = compiler.guard;
    const tests = ast.tests.map((test) => compiler.unaryTest(test));
    const negated = ast.negated;
    return (input, ctx) => {
      if (!isPlainObject(ctx) || !guard.safe(ctx)) bail();
      const value = input === undefined ? null : input;
      // feelin converts dates and temporals in the input before testing
      if (value !== null && typeof value !== 'number' && typeof value !== 'string' && typeof value !== 'boolean') bail();
      // no early exit: feelin evaluates every test, and a later one may be an error
      let matched = false;
      for (const test of tests) if (test(value, ctx) === true) matched = true;
      return negated ? !matched : matched;
    };
  } catch {
    return undefined;
  }
}
