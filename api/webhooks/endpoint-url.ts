// What an endpoint URL must be, checked when an endpoint is created or its
// URL changed: absolute http(s), no credentials, at most 2,048 characters,
// and not aimed at an address a delivery may not reach (addresses.ts) —
// an IP literal directly, a name by every address it resolves to now. The
// dispatcher checks the address it actually connects to again (a name may
// resolve elsewhere by then); this check is the early, explainable refusal.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { z } from 'zod';
import { forbiddenAddress } from './addresses.ts';

export const MAX_URL_LENGTH = 2048;

/** How long a name's lookup may take before the URL is taken unchecked (the dispatcher checks it when it connects). */
const LOOKUP_TIMEOUT_MS = 5_000;

/** The URL's syntax: zod refusals name what is wrong. */
export const endpointUrlSchema = z
  .string()
  .max(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`)
  .superRefine((text, context) => {
    const problem = urlSyntaxProblem(text);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
  })
  .describe(
    `Where deliveries are POSTed: an absolute http(s) URL without credentials, at most ${MAX_URL_LENGTH} characters, not resolving to a loopback, private, link-local or other reserved address (see docs/webhooks.md).`,
  );

function urlSyntaxProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute URL (https://…)';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `must be http or https, not ${url.protocol.slice(0, -1)}`;
  if (url.username !== '' || url.password !== '') return 'must not carry credentials (user:password@); authenticate deliveries by their signature';
  if (url.hostname === '') return 'must name a host';
  return undefined;
}

/** The host as the IP literal Node would connect to, or undefined for a name. */
function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? undefined : bare;
}

/**
 * Why a delivery may not go to this (syntactically valid) URL, or undefined.
 * A name that does not resolve (yet) is let through: it cannot be aimed
 * anywhere now, and the dispatcher refuses a forbidden address when it
 * connects.
 */
export async function forbiddenUrl(text: string, options: { allowPrivateNetworks?: boolean }): Promise<string | undefined> {
  const { hostname } = new URL(text);
  const literal = literalAddress(hostname);
  if (literal !== undefined) {
    const why = forbiddenAddress(literal, options);
    return why === undefined ? undefined : `${hostname} is refused: ${why.replace(`${literal} is `, 'it is ')}`;
  }
  let addresses: { address: string }[];
  try {
    addresses = await withTimeout(lookup(hostname, { all: true, verbatim: true }), LOOKUP_TIMEOUT_MS);
  } catch {
    return undefined;
  }
  for (const { address } of addresses) {
    const why = forbiddenAddress(address, options);
    if (why !== undefined) return `${hostname} resolves to ${address}, which is refused: ${why.replace(/^\S+ is /, 'it is ')}`;
  }
  return undefined;
}

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('lookup timed out')), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
