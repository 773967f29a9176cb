// The FEEL contract the rest of the engine relies on. Evaluation never
// throws: a bad expression, a failed evaluation or one stopped at a limit
// (eval-limits.ts) comes back as an error string that an incident can show
// to a modeller.

export type FeelResult<T = unknown> = { ok: true; value: T } | { ok: false; error: string };

/** Variables visible to an expression: a plain object, name → value. */
export type FeelContext = Record<string, unknown>;

export interface CompiledFeel {
  readonly source: string;
  /**
   * Evaluates against `context`. Evaluations given the same `scope` object
   * (an engine command, one decision evaluation) share one time allowance
   * (FEEL_LIMITS.scopeMs); without one, an evaluation has its own.
   */
  evaluate(context: FeelContext, scope?: object): FeelResult;
}

export interface CompiledUnaryTests {
  readonly source: string;
  /** Tests `input` against the unary tests (DMN input entries); `?` in the source is the input. */
  test(input: unknown, context: FeelContext, scope?: object): FeelResult<boolean>;
}
