// Ids and free text as the API takes them (engine/limits.ts): ids chosen by
// modellers and clients — process and decision ids, job types, worker names,
// assignees — are 1 to LIMITS.maxIdLength characters, and free text (a
// failed job's error message) at most LIMITS.maxTextLength. What a string
// may contain is held for every field at once (api/validation.ts).
import { z } from 'zod';
import { LIMITS } from '../../engine/index.ts';

export const idSchema = z.string().min(1).max(LIMITS.maxIdLength);

export const textSchema = z.string().max(LIMITS.maxTextLength);
