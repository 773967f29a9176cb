// Which FEEL sources can run for long, decided once from the parse tree.
// Without a loop (for, some/every, a filter), a function definition, a name
// bound to a value built in the same expression (a context entry read by a
// later one, which lets `{a: [x,x], b: [a,a], …}` double at every entry) or
// a builtin slower than linear, feelin's work grows only with the source and
// the variables it reads (the product of the two while it parses: see
// `references`), and those are bounded: such a source runs without a
// watchdog (deadline.ts) when its input is small (bounded.ts), which is what
// keeps its cost at feelin's own. Anything else always runs with one. The
// builtins below are the ones linear in their arguments; the
// regular-expression ones are not (RE2 is linear in the input for a fixed
// pattern, but a pattern can come from a variable), nor are the ones that
// sort, call a function or compare every pair (`distinct values`, `union`).
import type { parseExpression } from 'feelin';
import { FEELIN_BUILTIN_NAMES } from './builtin-names.ts';

type LezerTree = ReturnType<typeof parseExpression>;
type SyntaxNode = ReturnType<LezerTree['resolve']>;

/** Builtins whose work is not linear in their arguments (see above). */
const NOT_LINEAR = new Set(['replace', 'matches', 'split', 'list replace', 'union', 'distinct values', 'median', 'mode', 'sort']);

const LINEAR_BUILTINS = new Set([
  ...FEELIN_BUILTIN_NAMES.filter((name) => !NOT_LINEAR.has(name)),
  'date and time',
  // Camunda's, added by camunda-extensions.ts
  'is defined',
]);

const ALWAYS_LOOPING = new Set(['ForExpression', 'QuantifiedExpression', 'FunctionDefinition']);

/** `-1`, `2`: a filter by position costs one lookup. */
const INDEX_FILTER = /^\s*-?\s*\d+\s*$/;

function nameText(text: string, node: SyntaxNode): string {
  return text.slice(node.from, node.to).trim().replace(/\s+/g, ' ');
}

function children(node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling) out.push(child);
  return out;
}

function keyOf(text: string, entry: SyntaxNode): string | undefined {
  const key = entry.firstChild;
  if (key === null) return undefined;
  const raw = nameText(text, key);
  return raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
}

function readsAny(text: string, node: SyntaxNode, names: ReadonlySet<string>): boolean {
  const cursor = node.cursor();
  const end = node.to;
  while (cursor.next() && cursor.from < end) {
    if (cursor.name === 'VariableName' && names.has(nameText(text, cursor.node))) return true;
  }
  return false;
}

/**
 * True when an entry of a context literal reads an earlier entry: the only
 * way, without a loop or a function, to name one value twice. (`{item:
 * item}` reads the variable, not itself, so it does not count.)
 */
function readsEarlierEntry(text: string, context: SyntaxNode): boolean {
  const earlier = new Set<string>();
  for (const entry of children(context)) {
    if (entry.name !== 'ContextEntry') continue;
    const value = entry.lastChild;
    if (earlier.size > 0 && value !== null && readsAny(text, value, earlier)) return true;
    const key = keyOf(text, entry);
    if (key !== undefined) earlier.add(key);
  }
  return false;
}

function loops(text: string, node: SyntaxNode): boolean {
  if (ALWAYS_LOOPING.has(node.name)) return true;
  if (node.name === 'FilterExpression') {
    const filter = children(node)[2];
    return filter === undefined || !INDEX_FILTER.test(text.slice(filter.from, filter.to));
  }
  if (node.name === 'FunctionInvocation') {
    const callee = node.firstChild;
    return callee === null || callee.name !== 'VariableName' || !LINEAR_BUILTINS.has(nameText(text, callee));
  }
  if (node.name === 'Context') return readsEarlierEntry(text, node);
  return false;
}

export interface Risk {
  /** True when evaluating may take longer than linear time, so it always needs a deadline. */
  readonly canRunLong: boolean;
  /**
   * Names the source reads. While parsing, feelin copies the top level of
   * the value behind every name it meets, so its work also grows with
   * references × the size of what they name (bounded.ts weighs that).
   */
  readonly references: number;
}

/** The risk of the parsed `text`. */
export function riskOf(tree: LezerTree, text: string): Risk {
  let canRunLong = false;
  let references = 0;
  tree.iterate({
    enter(ref) {
      if (ref.type.isSkipped) return false;
      if (ref.name === 'VariableName' || ref.name === 'PathName') references++;
      if (!canRunLong && loops(text, ref.node)) canRunLong = true;
      return undefined;
    },
  });
  return { canRunLong, references };
}
