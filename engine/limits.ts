// What a request may carry into Orca (DESIGN §5 "Limits"): the one place
// these numbers live, held on every way in (REST bodies, path parameters,
// query strings, GraphQL, and later MCP and the client), and checked once
// more by the partition leader for what only it can see (an instance's
// variables as a whole). Postgres cannot store a NUL character or a lone
// UTF-16 surrogate in `text` or `jsonb`, so a value holding one would fail
// the whole batch it lands in; deep nesting costs stack in every recursive
// reader after the parser. Refusing them at the door is what keeps one
// request from stalling a partition for every account.

/** The limits, as documented in docs/configuration.md and docs/api.md. */
export const LIMITS = {
  /** Nesting of objects and arrays inside one variable value (the variables object itself is level 1). */
  maxDepth: 64,
  /** Top-level variables in one request (a start, a completion, a decision's input). */
  maxVariablesPerRequest: 1_000,
  /** Serialized size (UTF-8 JSON) of the variables of one request. */
  maxVariablesBytesPerRequest: 4 * 1024 * 1024,
  /** Top-level variables an instance may hold in its root scope. */
  maxVariablesPerInstance: 10_000,
  /** Serialized size of all variables of one instance (every scope). */
  maxVariablesBytesPerInstance: 4 * 1024 * 1024,
  /** Ids chosen by modellers and clients: process and decision ids, job types, worker names, assignees. */
  maxIdLength: 255,
  /** Free text a client sends (an error message of a failed job, a description). */
  maxTextLength: 10_000,
  /** A failed job's retryBackOff (extension), in milliseconds: one day. */
  maxRetryBackOffMs: 86_400_000,
  /** Elements one ad-hoc subprocess job result (extension) may activate. */
  maxActivateElements: 100,
  /** A published message's timeToLive (extension), in milliseconds: seven days. */
  maxMessageTimeToLiveMs: 7 * 86_400_000,
  /** A message name or correlation key (extension), in characters. */
  maxMessageKeyLength: 1_000,
  /** Messages one account may have buffered (timeToLive > 0, not yet expired) on a partition, which keeps a copy of each: the account's bound (extension). */
  maxBufferedMessagesPerAccountPartition: 10_000,
  /** A job's activation timeout (extension), in milliseconds: one day. */
  maxActivationTimeoutMs: 86_400_000,
  /** A BPMN or DMN document, in UTF-8 bytes (compileBpmn and compileDmn take a lower one). */
  maxModelBytes: 10 * 1024 * 1024,
  /** Nesting of elements in a BPMN or DMN document, the root element being level 1. */
  maxXmlDepth: 100,
} as const;

export type Limits = typeof LIMITS;

/**
 * Signal start chains (extension, docs/signals.md): an instance started by
 * a thrown signal is one generation past its thrower (one started any
 * other way is generation 0), and a signal thrown at this generation or
 * later starts no instances (it still reaches the waiting ones). It keeps
 * a process started by the signal it throws from running away where
 * starts cost nothing (credits off, `orca simulate`).
 */
export const SIGNAL_START_GENERATIONS = 16;

/**
 * The pace of thrown-signal starts (extension, docs/signals.md): how many
 * instances the signals an account's instances throw may start per second
 * on one partition leader, and at once after a quiet spell. Starts past it
 * wait their turn (the signal still reaches the waiting instances at once),
 * so processes that start each other by the signals they throw, however
 * wide their fan-out and however free the starts, take no more of a
 * partition than this.
 */
export const THROWN_SIGNAL_STARTS = { perSecond: 100, burst: 200 };

/** Why a value cannot be taken, and where in it (`a.b[2]`; empty for the value itself). */
export interface LimitProblem {
  path: string;
  message: string;
}

// Node 20 has String.prototype.isWellFormed (ES2024); the project's lib is older.
type WellFormed = string & { isWellFormed(): boolean };

/** A string's problem for Postgres `text`/`jsonb`: a NUL character or a lone surrogate; undefined when fine. */
export function stringProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (\\u0000)';
  if (!(text as WellFormed).isWellFormed()) return 'must not contain a lone UTF-16 surrogate (invalid Unicode)';
  return undefined;
}

/** `text` with each NUL and lone surrogate replaced by U+FFFD: for messages the engine itself must store. */
export function storableText(text: string): string {
  return (text.replaceAll('\u0000', '\ufffd') as WellFormed & { toWellFormed(): string }).toWellFormed();
}

/**
 * The first problem of a JSON value: a bad string (value or property name),
 * nesting deeper than `maxDepth`, or a value that is not JSON (a function,
 * a symbol, a non-finite number). Stops descending at the depth limit, so a
 * value nested 100,000 deep costs no more than one nested 65 deep.
 */
export function valueProblem(value: unknown, maxDepth: number = LIMITS.maxDepth): LimitProblem | undefined {
  return walk(value, '', 1, maxDepth);
}

function walk(value: unknown, path: string, depth: number, maxDepth: number): LimitProblem | undefined {
  switch (typeof value) {
    case 'string': {
      const message = stringProblem(value);
      return message === undefined ? undefined : { path, message };
    }
    case 'number':
      return Number.isFinite(value) ? undefined : { path, message: 'must be a finite number' };
    case 'boolean':
      return undefined;
    case 'object': {
      if (value === null) return undefined;
      if (depth > maxDepth) return { path, message: `is nested deeper than ${maxDepth} levels` };
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const problem = walk(value[i], `${path}[${i}]`, depth + 1, maxDepth);
          if (problem !== undefined) return problem;
        }
        return undefined;
      }
      for (const name in value) {
        // As JSON has it: a property whose value is undefined is not there (a command's optional field left out).
        if ((value as Record<string, unknown>)[name] === undefined) continue;
        const at = path === '' ? name : `${path}.${name}`;
        const nameMessage = stringProblem(name);
        if (nameMessage !== undefined) return { path: at, message: `has a name that ${nameMessage}` };
        const problem = walk((value as Record<string, unknown>)[name], at, depth + 1, maxDepth);
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
    default:
      return { path, message: `is not a JSON value (${typeof value})` };
  }
}

/**
 * The first problem of a request's variables: each value as `valueProblem`
 * sees it, then the count and the serialized size per request. `path`
 * names the variable (`orderId`, `items[3].sku`).
 */
export function variablesProblem(variables: Record<string, unknown>, limits: Limits = LIMITS): LimitProblem | undefined {
  let count = 0;
  for (const _name in variables) {
    if (++count > limits.maxVariablesPerRequest) return { path: '', message: `has more than ${limits.maxVariablesPerRequest} variables` };
  }
  for (const name in variables) {
    const nameMessage = stringProblem(name);
    if (nameMessage !== undefined) return { path: name, message: `has a name that ${nameMessage}` };
    const problem = walk(variables[name], name, 1, limits.maxDepth);
    if (problem !== undefined) return problem;
  }
  const bytes = Buffer.byteLength(JSON.stringify(variables));
  if (bytes > limits.maxVariablesBytesPerRequest)
    return { path: '', message: `are ${bytes} bytes as JSON, more than the ${limits.maxVariablesBytesPerRequest} allowed per request` };
  return undefined;
}

/**
 * Why an instance's variables outgrew the per-instance limits: its root
 * scope holds too many, or all its scopes together are too large as JSON;
 * undefined when they fit. The leader measures this only after a command
 * that brought variables, so its cost follows what clients send.
 */
export function instanceVariablesProblem(scopes: Record<string, Record<string, unknown>>, rootKey: string, limits: Limits = LIMITS): string | undefined {
  const root = scopes[rootKey];
  let count = 0;
  for (const _name in root) count++;
  if (count > limits.maxVariablesPerInstance) return `the instance holds ${count} variables, more than the ${limits.maxVariablesPerInstance} allowed`;
  const bytes = Buffer.byteLength(JSON.stringify(scopes));
  if (bytes > limits.maxVariablesBytesPerInstance)
    return `the instance's variables are ${bytes} bytes as JSON, more than the ${limits.maxVariablesBytesPerInstance} allowed`;
  return undefined;
}

/**
 * Where JSON text nests objects and arrays deeper than `maxDepth` (the
 * outermost value is level 1), found in the text itself before any parser
 * builds it: one pass, no recursion, so text nested 100,000 deep is refused
 * in the time it takes to read it, and nothing after it (a parser, a
 * validator, JSON.stringify) ever sees it. `path` names the first container
 * one level too deep, as `valueProblem` would (`variables.a[0]`). Text that
 * is not JSON at all may pass: refusing it is the parser's job.
 */
export function jsonDepthProblem(text: string, maxDepth: number = LIMITS.maxDepth): LimitProblem | undefined {
  // One entry per open container: for an array the index of its current
  // element; for an object where its current key's text starts and ends (-1: none yet).
  const arrays: boolean[] = [];
  const slots: number[] = [];
  const keyEnds: number[] = [];
  let lastString = -1;
  let lastStringEnd = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let end = text.indexOf('"', i + 1);
      while (end !== -1 && escaped(text, end)) end = text.indexOf('"', end + 1);
      if (end === -1) return undefined;
      lastString = i;
      lastStringEnd = end + 1;
      i = end;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (arrays.length >= maxDepth) return { path: containerPath(text, arrays, slots, keyEnds), message: `is nested deeper than ${maxDepth} levels` };
      arrays.push(c === 0x5b);
      slots.push(c === 0x5b ? 0 : -1);
      keyEnds.push(-1);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      arrays.pop();
      slots.pop();
      keyEnds.pop();
    } else if (c === 0x2c /* , */) {
      const top = arrays.length - 1;
      if (top >= 0 && arrays[top]) slots[top]++;
    } else if (c === 0x3a /* : */) {
      const top = arrays.length - 1;
      if (top >= 0 && !arrays[top]) {
        slots[top] = lastString;
        keyEnds[top] = lastStringEnd;
      }
    }
  }
  return undefined;
}

/** True when the quote at `at` is escaped: an odd number of backslashes before it. */
function escaped(text: string, at: number): boolean {
  let backslashes = 0;
  for (let i = at - 1; i >= 0 && text.charCodeAt(i) === 0x5c; i--) backslashes++;
  return backslashes % 2 === 1;
}

function containerPath(text: string, arrays: boolean[], slots: number[], keyEnds: number[]): string {
  let path = '';
  for (let level = 0; level < arrays.length; level++) {
    if (arrays[level]) {
      path += `[${slots[level]}]`;
      continue;
    }
    if (slots[level] < 0) continue;
    const raw = text.slice(slots[level], keyEnds[level]);
    let name: string;
    try {
      name = JSON.parse(raw) as string;
    } catch {
      name = raw.slice(1, -1);
    }
    path = path === '' ? name : `${path}.${name}`;
  }
  return path;
}
