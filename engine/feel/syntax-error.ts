// Syntax errors in a parsed FEEL tree. feelin's parse functions never throw
// (lezer recovers from errors and marks them in the tree); feelin only
// reports the first error node when it interprets the tree. This finds that
// same node and words it the way feelin does, plus where it is, so a model
// can be rejected at deploy time instead of failing at its first evaluation.
import type { parseExpression } from 'feelin';

type LezerTree = ReturnType<typeof parseExpression>;
type SyntaxNode = ReturnType<LezerTree['resolve']>;

function nextNode(node: SyntaxNode): SyntaxNode | null {
  for (let parent: SyntaxNode | null = node; parent; parent = parent.parent) {
    if (parent.nextSibling) return parent.nextSibling;
  }
  return null;
}

function describe(node: SyntaxNode): { message: string; from: number; to: number } {
  const parent = node.parent;
  const parentName = parent?.name ?? 'Expression';
  if (node.from !== node.to) return { message: `Unrecognized token in <${parentName}>`, from: node.from, to: node.to };
  const next = nextNode(node);
  if (next) return { message: `Unrecognized token <${next.name}> in <${parentName}>`, from: next.from, to: next.to };
  const unfinished = parent?.enterUnfinishedNodesBefore(node.to);
  return { message: `Incomplete <${(unfinished ?? parent)?.name ?? parentName}>`, from: node.from, to: node.to };
}

/** The first syntax error in `tree` (parsed from `source`), or undefined when there is none. */
export function syntaxErrorIn(tree: LezerTree, source: string): string | undefined {
  let error: SyntaxNode | undefined;
  tree.iterate({
    enter(ref) {
      if (error) return false;
      if (ref.type.isError) {
        error = ref.node;
        return false;
      }
      // comments cannot hold errors; feelin does not look inside them either
      return ref.type.isSkipped ? false : undefined;
    },
  });
  if (!error) return undefined;
  const { message, from, to } = describe(error);
  const near = source.slice(from, to);
  const where = from >= source.length ? 'at the end' : `at character ${from + 1}`;
  return near ? `${message} ${where} near '${near}'` : `${message} ${where}`;
}
