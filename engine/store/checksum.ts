// Content checksums for deployed models: XML identical to the latest
// version's keeps that version, so the checksum is over the exact bytes received.
import { createHash } from 'node:crypto';

export function checksumOf(xml: string): string {
  return createHash('sha256').update(xml, 'utf8').digest('hex');
}

export const isChecksum = (value: string): boolean => /^[0-9a-f]{64}$/.test(value);
