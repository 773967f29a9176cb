// The "Variables (JSON)" editor: a labelled textarea checked as you type.
// Anything but a JSON object is explained beside it (and announced), and
// the caller gets null, so nothing is sent until it is right.

/** The variables the text holds, or the reason it is not a JSON object. */
export function parseVariables(text: string): { variables: Record<string, unknown> } | { error: string } {
  if (text.trim() === '') return { variables: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `This is not valid JSON: ${(error as Error).message}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { error: 'The variables must be a JSON object, such as {"approved": true}.' };
  return { variables: value as Record<string, unknown> };
}
