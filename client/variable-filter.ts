// listInstances' variable filters beyond the first: the server filters a
// page by one `name:value`, and the client applies the others to each page,
// comparing as the server's filter does.

export interface VariableFilter {
  name: string;
  value: string;
}

export function parseVariableFilter(text: string): VariableFilter {
  const colon = text.indexOf(':');
  if (colon <= 0) throw new TypeError(`variable filter '${text}' must be <name>:<value>`);
  return { name: text.slice(0, colon), value: text.slice(colon + 1) };
}

/** Whether the variables pass every filter. */
export function matchesAll(variables: Record<string, unknown>, filters: readonly VariableFilter[]): boolean {
  return filters.every((f) => variableMatches(variables[f.name], f.value));
}

/** As the server's filter compares: the text as a string, or as the number, boolean or null it spells. */
function variableMatches(value: unknown, text: string): boolean {
  if (typeof value === 'string') return value === text;
  if (typeof value === 'number') return text.trim() !== '' && Number(text) === value;
  if (typeof value === 'boolean' || value === null) return JSON.stringify(value) === text;
  return false;
}
