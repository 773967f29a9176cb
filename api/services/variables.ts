// Process variables at the HTTP boundary: a JSON object of name → value
// (SPEC.md), never an array or a scalar.
import { z } from 'zod';

export const variablesSchema = z.record(z.string(), z.unknown()).describe('Variables: a JSON object of name to value.');
