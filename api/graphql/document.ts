// What a GraphQL document must be before mercurius sees it: text that
// parses as GraphQL, nested no deeper than a request can need. Both guard
// against mercurius itself: it hands a document that does not parse to
// JSON.parse and runs the result as a ready-made syntax tree (so `1` or
// `"x"` crashed its validation with a 500, and a client could send any tree
// it liked), and graphql-js parses recursively, so thousands of nested
// brackets overflow the stack. The nesting is counted in the text first, in
// one pass, so the parser never sees such a document.
import { GraphQLError, parse } from 'graphql';
import { LIMITS } from '../../engine/index.ts';

/**
 * Selection sets (at most the query depth limit, each with its arguments'
 * parentheses) plus an argument value nested as deep as a variable may be,
 * and a little room.
 */
export function maxDocumentDepth(queryDepthLimit: number): number {
  return 2 * queryDepthLimit + LIMITS.maxDepth + 4;
}

/** Why the document cannot be run (a syntax error, or nesting too deep), or undefined when it parses. */
export function documentErrors(source: string, maxDepth: number): GraphQLError[] | undefined {
  const deepAt = nestingPastLimit(source, maxDepth);
  if (deepAt !== undefined) {
    return [new GraphQLError(`The document nests brackets, braces or parentheses deeper than ${maxDepth} levels (at offset ${deepAt}).`)];
  }
  try {
    parse(source, { noLocation: true });
    return undefined;
  } catch (error) {
    if (error instanceof GraphQLError) return [error];
    throw error;
  }
}

/** The offset of the first `{`, `[` or `(` past `maxDepth` levels, outside strings and comments. */
function nestingPastLimit(source: string, maxDepth: number): number | undefined {
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '#') {
      const end = source.indexOf('\n', i);
      if (end === -1) return undefined;
      i = end;
    } else if (c === '"') {
      i = stringEnd(source, i);
      if (i === -1) return undefined;
    } else if (c === '{' || c === '[' || c === '(') {
      if (++depth > maxDepth) return i;
    } else if (c === '}' || c === ']' || c === ')') {
      depth--;
    }
  }
  return undefined;
}

/** The offset of the last character of the string or block string opening at `start`; -1 when unterminated. */
function stringEnd(source: string, start: number): number {
  if (source.startsWith('"""', start)) {
    for (let i = start + 3; ; i++) {
      const end = source.indexOf('"""', i);
      if (end === -1) return -1;
      // \""" is an escaped triple quote inside a block string.
      if (source[end - 1] !== '\\') return end + 2;
      i = end;
    }
  }
  for (let i = start + 1; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (c === '"') return i;
    else if (c === '\n') return -1;
  }
  return -1;
}
