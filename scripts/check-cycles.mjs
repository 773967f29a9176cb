#!/usr/bin/env node
// Fails when the TypeScript modules of the repository import each other in a
// cycle. A cycle means two modules can only be understood (and loaded)
// together, and with ES modules one of them sees the other half-initialised;
// the layers of docs/architecture.md only hold if the graph has none.
// `npm run lint` runs it. Follows the relative static imports and re-exports
// that load a module, read with the TypeScript parser. Type-only imports are
// erased by the compiler and never load anything (an interface used by the
// module that implements its callers is fine); a dynamic import() loads
// after its importer has finished; packages are not followed.
//
//   node scripts/check-cycles.mjs [dir ...]   (default: the whole tree)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const SKIP = new Set(['node_modules', '.git', '.orca-data', 'coverage', 'dist']);

function sourceFiles(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(full, out);
    else if (/\.(ts|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** Whether the compiler keeps this import or re-export (it drops those naming only types). */
function loads(statement) {
  if (ts.isImportDeclaration(statement)) {
    const clause = statement.importClause;
    if (clause === undefined) return true;
    if (clause.isTypeOnly) return false;
    const bindings = clause.namedBindings;
    const onlyTypes = clause.name === undefined && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.every((e) => e.isTypeOnly);
    return !onlyTypes;
  }
  if (ts.isExportDeclaration(statement)) {
    if (statement.isTypeOnly) return false;
    const clause = statement.exportClause;
    return !(clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly));
  }
  return false;
}

function importsOf(file) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  return source.statements
    .filter((statement) => loads(statement) && statement.moduleSpecifier !== undefined && ts.isStringLiteral(statement.moduleSpecifier))
    .map((statement) => statement.moduleSpecifier.text)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => resolve(file, specifier))
    .filter((target) => target !== undefined);
}

function resolve(from, specifier) {
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, path.join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile() && /\.(ts|mts)$/.test(candidate)) return candidate;
  }
  return undefined;
}

// Tarjan's strongly connected components: every component of more than one
// module (or a module importing itself) holds at least one cycle.
function cyclicComponents(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  const visit = (node) => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node), low.get(target)));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node), index.get(target)));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) components.push(component);
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return components;
}

/** One concrete cycle through `start` inside its component (breadth-first, so the shortest). */
function cycleThrough(graph, component, start) {
  const members = new Set(component);
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const target of graph.get(node) ?? []) {
      if (!members.has(target)) continue;
      if (target === start) {
        const cycle = [start];
        for (let at = node; at !== start; at = previous.get(at)) cycle.splice(1, 0, at);
        return [...cycle, start];
      }
      if (!previous.has(target)) {
        previous.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start, start];
}

const dirs = process.argv.slice(2).map((dir) => path.resolve(dir));
const files = (dirs.length > 0 ? dirs : [root]).flatMap((dir) => sourceFiles(dir));
const graph = new Map(files.map((file) => [file, importsOf(file)]));
const components = cyclicComponents(graph);
const relative = (file) => path.relative(root, file);

if (components.length === 0) {
  console.log(`check-cycles: ${files.length} modules, no import cycle`);
} else {
  console.error(`check-cycles: ${components.length} import cycle${components.length > 1 ? 's' : ''}:`);
  for (const component of components) {
    const start = [...component].sort()[0];
    console.error(`  ${cycleThrough(graph, component, start).map(relative).join('\n    -> ')}`);
    if (component.length > 2) console.error(`    (${component.length} modules are tied together: ${component.map(relative).sort().join(', ')})`);
  }
  process.exitCode = 1;
}
