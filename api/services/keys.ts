// Keys as they appear in paths and filters (DESIGN §5: decimal strings of
// 64-bit integers). A malformed key is the caller's mistake and gets a 400
// naming the field; a well-formed key that matches nothing is a 404.
import { z } from 'zod';
import { isKey } from '../../engine/index.ts';

export const keySchema = z.string().refine(isKey, 'must be a key: the decimal string of a 64-bit integer, as this API returns it');
