// The two patch formats the API server accepts on every resource: JSON merge
// patch (RFC 7386) and JSON patch (RFC 6902). Both return a new document and
// leave their input untouched; a JSON patch that cannot apply throws, so the
// server answers with an error and stores nothing.
import { isDeepStrictEqual } from 'node:util';

type Json = unknown;

function isObject(value: Json): value is Record<string, Json> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** RFC 7386: objects merge key by key, null deletes, anything else replaces. */
export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return structuredClone(patch);
  const result: Record<string, Json> = isObject(target) ? structuredClone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  value?: Json;
  from?: string;
}

export class PatchError extends Error {
  /** True when the patch document itself is malformed (400), false when it does not apply (422). */
  constructor(
    message: string,
    readonly malformed = false,
  ) {
    super(message);
  }
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new PatchError(`invalid JSON pointer "${pointer}"`);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function arrayIndex(container: Json[], token: string, forAdd: boolean): number {
  if (forAdd && token === '-') return container.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`invalid array index "${token}"`);
  const index = Number(token);
  if (index > container.length || (!forAdd && index === container.length)) throw new PatchError(`array index ${index} out of range`);
  return index;
}

/** The container of the pointer's last token, which must exist. */
function parentOf(doc: Json, tokens: string[], pointer: string): Json {
  let node = doc;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(node)) node = node[arrayIndex(node, token, false)];
    else if (isObject(node) && token in node) node = node[token];
    else throw new PatchError(`path "${pointer}" does not exist`);
  }
  if (!Array.isArray(node) && !isObject(node)) throw new PatchError(`path "${pointer}" does not exist`);
  return node;
}

function getAt(doc: Json, pointer: string): Json {
  let node = doc;
  for (const token of parsePointer(pointer)) {
    if (Array.isArray(node)) node = node[arrayIndex(node, token, false)];
    else if (isObject(node) && token in node) node = node[token];
    else throw new PatchError(`path "${pointer}" does not exist`);
  }
  return node;
}

function addAt(doc: Json, pointer: string, value: Json): Json {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return value;
  const parent = parentOf(doc, tokens, pointer);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, true), 0, value);
  else (parent as Record<string, Json>)[last] = value;
  return doc;
}

function removeAt(doc: Json, pointer: string): Json {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) throw new PatchError('cannot remove the whole document');
  const parent = parentOf(doc, tokens, pointer);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, false), 1);
  else if (last in (parent as Record<string, Json>)) delete (parent as Record<string, Json>)[last];
  else throw new PatchError(`path "${pointer}" does not exist`);
  return doc;
}

/** RFC 6902, all six operations, atomically: any failing operation fails the whole patch. */
export function jsonPatch(target: Json, operations: unknown): Json {
  if (!Array.isArray(operations)) throw new PatchError('a JSON patch is an array of operations', true);
  let doc = structuredClone(target);
  for (const raw of operations as JsonPatchOperation[]) {
    if (!isObject(raw as Json) || typeof raw.path !== 'string') throw new PatchError('every operation needs "op" and "path"', true);
    switch (raw.op) {
      case 'add':
        doc = addAt(doc, raw.path, structuredClone(raw.value));
        break;
      case 'remove':
        doc = removeAt(doc, raw.path);
        break;
      case 'replace':
        getAt(doc, raw.path);
        doc = raw.path === '' ? structuredClone(raw.value) : addAt(removeAt(doc, raw.path), raw.path, structuredClone(raw.value));
        break;
      case 'move': {
        if (typeof raw.from !== 'string') throw new PatchError('"move" needs "from"');
        const value = getAt(doc, raw.from);
        doc = addAt(removeAt(doc, raw.from), raw.path, value);
        break;
      }
      case 'copy':
        if (typeof raw.from !== 'string') throw new PatchError('"copy" needs "from"');
        doc = addAt(doc, raw.path, structuredClone(getAt(doc, raw.from)));
        break;
      case 'test':
        if (!isDeepStrictEqual(getAt(doc, raw.path), raw.value)) throw new PatchError(`test failed at "${raw.path}"`);
        break;
      default:
        throw new PatchError(`unknown operation "${String((raw as { op: unknown }).op)}"`);
    }
  }
  return doc;
}
