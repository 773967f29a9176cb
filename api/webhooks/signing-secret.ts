// Webhook signing secrets: their shape (Standard Webhooks: `whsec_` and the
// base64 of 24 random bytes, the bytes being the HMAC key) and the form they
// are stored in. Unlike the credentials, a signing secret has to be read
// back to sign with, so it cannot be kept as a hash: with a key configured
// (ORCA_WEBHOOK_SECRET_KEY, 32 bytes as base64) it is stored sealed with
// AES-256-GCM, so a copy of the database alone does not let anyone forge
// deliveries; without one it is stored as it is (`plain:`), which
// docs/webhooks.md tells production installations not to do.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export const SIGNING_SECRET_PREFIX = 'whsec_';

export function newSigningSecret(): string {
  return SIGNING_SECRET_PREFIX + randomBytes(24).toString('base64');
}

/** The HMAC key a signing secret stands for. */
export function signingKeyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SIGNING_SECRET_PREFIX) ? secret.slice(SIGNING_SECRET_PREFIX.length) : secret, 'base64');
}

export interface SecretSealer {
  /** The form to store. */
  seal(secret: string): string;
  /** The secret a stored form holds; throws for a form sealed with another key. */
  open(stored: string): string;
}

/** Seals with `key` (base64 of 32 bytes), or stores plainly without one. Throws for a key of another length. */
export function secretSealer(key?: string): SecretSealer {
  const bytes = key === undefined || key === '' ? undefined : Buffer.from(key, 'base64');
  if (bytes !== undefined && bytes.length !== 32) {
    throw new RangeError(`ORCA_WEBHOOK_SECRET_KEY must be 32 bytes as base64 (e.g. \`openssl rand -base64 32\`), not ${bytes.length} bytes`);
  }
  return {
    seal(secret) {
      if (bytes === undefined) return `plain:${secret}`;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', bytes, iv);
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return `v1:${iv.toString('base64')}:${sealed.toString('base64')}:${cipher.getAuthTag().toString('base64')}`;
    },
    open(stored) {
      if (stored.startsWith('plain:')) return stored.slice('plain:'.length);
      const [version, iv, sealed, tag] = stored.split(':');
      if (version !== 'v1' || tag === undefined) throw new Error('Unrecognised stored form of a webhook signing secret.');
      if (bytes === undefined) throw new Error('A webhook signing secret is sealed, but ORCA_WEBHOOK_SECRET_KEY is not set.');
      const decipher = createDecipheriv('aes-256-gcm', bytes, Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]).toString('utf8');
    },
  };
}

/**
 * The HMAC keys of stored secrets, opened once each rather than per
 * delivery (opening a sealed one is an AES-GCM decryption): remembered by
 * their stored form, so a rotation's new form is a new entry; forgotten all
 * at once past `max` entries, which bounds the memory. A form that cannot
 * be opened throws every time and is not remembered.
 */
export function signingKeyCache(sealer: SecretSealer, max = 1024): (stored: string) => Buffer {
  const keys = new Map<string, Buffer>();
  return (stored) => {
    let key = keys.get(stored);
    if (key === undefined) {
      key = signingKeyOf(sealer.open(stored));
      if (keys.size >= max) keys.clear();
      keys.set(stored, key);
    }
    return key;
  };
}
