// The connection side of the SSRF guard: an undici connector that resolves
// a delivery's host name itself, refuses when ANY of its addresses is
// forbidden (addresses.ts), and then connects to the address it checked —
// never to the name, so no second lookup can answer differently (DNS
// rebinding). IP literals, which Node would connect to without any lookup,
// are checked the same way. TLS still verifies the certificate against the
// name in the URL (its SNI and identity come from the URL's host).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { buildConnector } from 'undici';
import { forbiddenAddress } from './addresses.ts';

/** A refused destination; its message is the reason recorded on the attempt. */
export class ForbiddenAddressError extends Error {
  readonly code = 'ORCA_WEBHOOK_FORBIDDEN_ADDRESS';
}

export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

/** The address to connect to for `hostname`, or a ForbiddenAddressError naming the first forbidden one. */
export async function checkedAddress(hostname: string, options: { allowPrivateNetworks: boolean; resolve?: Resolve }): Promise<string> {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  const addresses = isIP(bare) !== 0 ? [bare] : (await (options.resolve ?? systemResolve)(bare)).map((a) => a.address);
  if (addresses.length === 0) throw new Error(`${bare} did not resolve to any address`);
  for (const address of addresses) {
    const why = forbiddenAddress(address, options);
    if (why !== undefined) {
      throw new ForbiddenAddressError(address === bare ? `refused: ${why}` : `refused: ${bare} resolves to ${why.replace(/^\S+ is /, `${address}, `)}`);
    }
  }
  return addresses[0];
}

/** An undici `connect` option: connects only to checked addresses. */
export function guardedConnector(options: { allowPrivateNetworks: boolean; connectTimeoutMs: number; resolve?: Resolve }): buildConnector.connector {
  const connect = buildConnector({ timeout: options.connectTimeoutMs });
  return (opts, callback) => {
    checkedAddress(opts.hostname, options).then(
      // `host` (the URL's) is left as it is: TLS takes its server name from it.
      (address) => connect({ ...opts, hostname: address }, callback),
      (error: Error) => callback(error, null),
    );
  };
}
