// The connect-time check stands on its own: a resolver (or a URL literal)
// handing back an IPv6 spelling of a forbidden IPv4 address is refused here,
// whatever the check at endpoint creation converted.
import { describe, expect, it } from 'vitest';
import { checkedAddress } from './guarded-connector.ts';

describe('checkedAddress', () => {
  it.each([
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['0:0:0:0:0:ffff:7f00:0001', 'loopback'],
    ['::7f00:1', 'IPv4-compatible'],
    ['64:ff9b::a00:1', 'NAT64'],
  ])('refuses a name that resolves to %s (%s)', async (address, what) => {
    const resolve = async () => [{ address, family: 6 }];
    await expect(checkedAddress('rebound.example', { allowPrivateNetworks: false, resolve })).rejects.toThrow(
      `refused: rebound.example resolves to ${address}, a`,
    );
    await expect(checkedAddress('rebound.example', { allowPrivateNetworks: false, resolve })).rejects.toThrow(what);
  });

  it('refuses a hex IPv4-mapped literal', async () => {
    await expect(checkedAddress('[::ffff:7f00:1]', { allowPrivateNetworks: false })).rejects.toThrow('refused: ::ffff:7f00:1 is a loopback address');
  });

  it('connects to a public IPv4-mapped address as given', async () => {
    const resolve = async () => [{ address: '::ffff:808:808', family: 6 }];
    await expect(checkedAddress('public.example', { allowPrivateNetworks: false, resolve })).resolves.toBe('::ffff:808:808');
  });
});
