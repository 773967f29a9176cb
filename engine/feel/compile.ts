// Turning one FEEL source into a compiled object: parse it once with feelin
// (rejecting syntax errors), attach the fast closure when the source is in
// the fast slice, and otherwise evaluate through feelin. feelin exposes no
// way to interpret a tree it has already parsed, so the feelin fallback
// re-parses on each evaluation; the fast path is what makes the common
// shapes cheap. Sources using Camunda extensions (camunda-extensions.ts) run
// rewritten, always through feelin. Every feelin evaluation runs bounded
// (bounded.ts; whether it needs a deadline is decided here, once, by
// risk.ts); the fast closures are bounded by construction and skip all of
// that. Evaluation never throws.
import { evaluate as feelinEvaluate, parseExpression, parseUnaryTests, unaryTest as feelinUnaryTest } from 'feelin';
import { runBounded, type RunPlan } from './bounded.ts';
import { prepare, type Extensions } from './camunda-extensions.ts';
import { compileFastExpression, compileFastUnaryTests, type FastExpression, type FastUnaryTests } from './fast-path.ts';
import { narrowContext, sourceWords, type SourceWords } from './narrow-context.ts';
import { riskOf } from './risk.ts';
import { syntaxErrorIn } from './syntax-error.ts';
import type { CompiledFeel, CompiledUnaryTests, FeelContext, FeelResult } from './types.ts';

/** A compiled expression; `fast` tells whether evaluation skips feelin for ordinary contexts. */
export interface CompiledExpression extends CompiledFeel {
  readonly fast: boolean;
}

/** Compiled unary tests; `fast` as for CompiledExpression. */
export interface CompiledTests extends CompiledUnaryTests {
  readonly fast: boolean;
}

/** What the cache keeps per source: the compile result and the bare syntax error, if any. */
export interface Compilation<T> {
  readonly result: FeelResult<T>;
  readonly syntaxError?: string;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** How a source runs through feelin: bounded (bounded.ts), on the variables it can read (narrow-context.ts). */
interface FeelinPlan extends RunPlan {
  readonly words: SourceWords;
}

class FeelExpression implements CompiledExpression {
  readonly fast: boolean;

  constructor(
    readonly source: string,
    private readonly plan: FeelinPlan,
    private readonly fastEvaluate: FastExpression | undefined,
    private readonly extensions?: Extensions,
  ) {
    this.fast = fastEvaluate !== undefined;
  }

  evaluate(context: FeelContext, scope?: object): FeelResult {
    if (this.fastEvaluate) {
      try {
        return { ok: true, value: this.fastEvaluate(context) };
      } catch {
        // the fast path bailed out (or tripped): feelin decides, errors included
      }
    }
    const ext = this.extensions;
    return runBounded(
      this.plan,
      scope,
      () => narrowContext(context, this.plan.words),
      (narrowed) => (ext ? feelinEvaluate(ext.executable, ext.extend(narrowed)) : feelinEvaluate(this.source, narrowed)).value,
    );
  }
}

class FeelUnaryTests implements CompiledTests {
  readonly fast: boolean;

  constructor(
    readonly source: string,
    private readonly plan: FeelinPlan,
    private readonly fastTest: FastUnaryTests | undefined,
    private readonly extensions?: Extensions,
  ) {
    this.fast = fastTest !== undefined;
  }

  test(input: unknown, context: FeelContext, scope?: object): FeelResult<boolean> {
    if (this.fastTest) {
      try {
        return { ok: true, value: this.fastTest(input, context) };
      } catch {
        // see FeelExpression.evaluate
      }
    }
    const ext = this.extensions;
    return runBounded(
      this.plan,
      scope,
      () => ({ ...narrowContext(context, this.plan.words), '?': input }),
      (full) => (ext ? feelinUnaryTest(ext.executable, ext.extend(full)) : feelinUnaryTest(this.source, full)).value === true,
    );
  }
}

export function compileExpressionSource(source: string): Compilation<CompiledExpression> {
  const fail = (syntaxError: string): Compilation<CompiledExpression> => ({
    syntaxError,
    result: { ok: false, error: `cannot parse FEEL expression '${source}': ${syntaxError}` },
  });
  try {
    const prepared = prepare(source, 'expression');
    if (!prepared.ok) return fail(prepared.syntaxError);
    const tree = parseExpression(prepared.masked, {}, undefined);
    const syntaxError = syntaxErrorIn(tree, source);
    if (syntaxError !== undefined) return fail(syntaxError);
    const { extensions } = prepared;
    const fast = extensions ? undefined : compileFastExpression(source, tree);
    const plan = { source, ...riskOf(tree, prepared.masked), words: sourceWords(source) };
    return { result: { ok: true, value: new FeelExpression(source, plan, fast, extensions) } };
  } catch (err) {
    return fail(message(err));
  }
}

export function compileUnaryTestsSource(source: string): Compilation<CompiledTests> {
  const fail = (syntaxError: string): Compilation<CompiledTests> => ({
    syntaxError,
    result: { ok: false, error: `cannot parse unary tests '${source}': ${syntaxError}` },
  });
  try {
    const prepared = prepare(source, 'unaryTests');
    if (!prepared.ok) return fail(prepared.syntaxError);
    const tree = parseUnaryTests(prepared.masked, {}, undefined);
    const syntaxError = syntaxErrorIn(tree, source);
    if (syntaxError !== undefined) return fail(syntaxError);
    const { extensions } = prepared;
    const fast = extensions ? undefined : compileFastUnaryTests(source, tree);
    const plan = { source, ...riskOf(tree, prepared.masked), words: sourceWords(source) };
    return { result: { ok: true, value: new FeelUnaryTests(source, plan, fast, extensions) } };
  } catch (err) {
    return fail(message(err));
  }
}
