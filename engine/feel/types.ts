// The FEEL contract the rest of the engine relies on. Evaluation never
// throws: a bad expression or a failed evaluation comes back as an error
// string that an incident can show to a modeller.

export type FeelResult<T = unknown> = { ok: true; value: T } | { ok: false; error: string };

/** Variables visible to an expression: a plain object, name → value. */
export type FeelContext = Record<string, unknown>;

export interface CompiledFeel {
  readonly source: string;
  evaluate(context: FeelContext): FeelResult;
}

export interface CompiledUnaryTests {
  readonly source: string;
  /** Tests `input` against the unary tests (DMN input entries); `?` in the source is the input. */
  test(input: unknown, context: FeelContext): FeelResult<boolean>;
}
