// Cross-check between the fast parser and feelin's own parser: both sides are
// rendered to the same bracketed form of lezer-feel node names, and the fast
// path is only used when they agree. This catches any disagreement about
// precedence or tokenization (e.g. `- 5`, `1e3`) without having to predict
// every corner of the FEEL grammar by hand.
import type { parseExpression } from 'feelin';
import type { Expr, Operand, UnaryTest, UnaryTestsAst } from './fast-parser.ts';

type LezerTree = ReturnType<typeof parseExpression>;

function leaf(name: string, text: string): string {
  return `(${name}:${JSON.stringify(text)})`;
}

/** Renders feelin's parse tree of `source`: inner nodes by name, leaves with their text. */
export function treeSignature(tree: LezerTree, source: string): string {
  const out: string[] = [];
  tree.iterate({
    enter(node) {
      out.push(node.node.firstChild ? `(${node.name}` : `(${node.name}:${JSON.stringify(source.slice(node.from, node.to))}`);
    },
    leave() {
      out.push(')');
    },
  });
  return out.join('');
}

function operandSignature(operand: Operand): string {
  if (operand.kind === 'path') {
    let sig = `(VariableName${leaf('Identifier', operand.names[0])})`;
    for (const name of operand.names.slice(1)) sig = `(PathExpression${sig}${leaf('.', '.')}(PathName${leaf('Identifier', name)}))`;
    return sig;
  }
  switch (operand.token) {
    case 'number':
      // lezer-feel folds a leading minus into the literal as an ArithOp child
      return operand.text.startsWith('-') ? `(NumericLiteral${leaf('ArithOp', '-')})` : leaf('NumericLiteral', operand.text);
    case 'string':
      return leaf('StringLiteral', operand.text);
    case 'boolean':
      return leaf('BooleanLiteral', operand.text);
    case 'null':
      return leaf('null', 'null');
  }
}

function exprSignature(expr: Expr): string {
  switch (expr.kind) {
    case 'literal':
    case 'path':
      return operandSignature(expr);
    case 'compare':
      return `(Comparison${exprSignature(expr.left)}${leaf('CompareOp', expr.op)}${exprSignature(expr.right)})`;
    case 'and':
      return `(Conjunction${exprSignature(expr.left)}${leaf('and', 'and')}${exprSignature(expr.right)})`;
    case 'or':
      return `(Disjunction${exprSignature(expr.left)}${leaf('or', 'or')}${exprSignature(expr.right)})`;
    case 'not':
      return `(FunctionInvocation(VariableName${leaf('Identifier', 'not')})${leaf('(', '(')}(PositionalParameters${exprSignature(expr.operand)})${leaf(')', ')')})`;
    case 'paren':
      return `(ParenthesizedExpression${leaf('(', '(')}${exprSignature(expr.inner)}${leaf(')', ')')})`;
  }
}

/** The signature feelin's tree must have for the fast expression to mean the same. */
export function expressionSignature(expr: Expr): string {
  return `(Expression${exprSignature(expr)})`;
}

function unaryTestSignature(test: UnaryTest): string {
  switch (test.kind) {
    case 'compare':
      return `(PositiveUnaryTest(SimplePositiveUnaryTest${leaf('CompareOp', test.op)}${operandSignature(test.operand)}))`;
    case 'interval':
      return `(PositiveUnaryTest(SimplePositiveUnaryTest(Interval${leaf(test.open, test.open)}${operandSignature(test.start)}${leaf('..', '..')}${operandSignature(test.end)}${leaf(test.close, test.close)})))`;
    case 'value':
      return `(PositiveUnaryTest${operandSignature(test.operand)})`;
  }
}

/** The signature feelin's unary-tests tree must have for the fast tests to mean the same. */
export function unaryTestsSignature(ast: UnaryTestsAst): string {
  if (ast.kind === 'wildcard') return `(UnaryTests(Wildcard${leaf('ArithOp', '-')}))`;
  const list = `(PositiveUnaryTests${ast.tests.map(unaryTestSignature).join('')})`;
  return ast.negated ? `(UnaryTests${leaf('not', 'not')}${leaf('(', '(')}${list}${leaf(')', ')')})` : `(UnaryTests${list})`;
}
