// Each class of address a webhook may not reach is refused with a reason
// naming it; public addresses pass; allowing private networks lets loopback
// and private ranges through but never link-local (cloud metadata).
import { describe, expect, it } from 'vitest';
import { forbiddenAddress } from './addresses.ts';

describe('forbiddenAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.20.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fd00::1', 'unique local'],
    ['100.64.0.1', 'shared'],
    ['0.0.0.0', 'this network'],
    ['::', 'unspecified'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['224.0.0.1', 'multicast'],
    ['192.0.2.10', 'documentation'],
  ])('refuses %s (%s)', (address, what) => {
    expect(forbiddenAddress(address)).toContain(what);
  });

  it.each(['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111'])('lets %s through', (address) => {
    expect(forbiddenAddress(address)).toBeUndefined();
  });

  // The connect-time check sees whatever a resolver or a literal hands it, so
  // every IPv6 way of writing a forbidden IPv4 address must be caught here,
  // not only the dotted ::ffff:a.b.c.d form.
  it.each([
    ['::ffff:7f00:1', 'loopback'],
    ['::FFFF:7F00:0001', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:0001', 'loopback'],
    ['0000:0000:0000:0000:0000:ffff:7f00:0001', 'loopback'],
    ['0:0:0:0:0:ffff:127.0.0.1', 'loopback'],
    ['[::ffff:7f00:1]', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:a00:1', 'private'],
    ['::ffff:c0a8:101', 'private'],
    ['::ffff:0:0', 'this network'],
    ['::7f00:1', 'IPv4-compatible'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['0:0:0:0:0:0:a9fe:a9fe', 'IPv4-compatible'],
    ['64:ff9b::7f00:1', 'NAT64'],
    ['64:ff9b::169.254.169.254', 'NAT64'],
    ['64:ff9b:0:0:0:0:a00:1', 'NAT64'],
  ])('refuses the IPv6 spelling %s (%s)', (address, what) => {
    expect(forbiddenAddress(address)).toContain(what);
  });

  it.each(['::ffff:8.8.8.8', '::ffff:808:808', '0:0:0:0:0:ffff:0808:0808', '2606:4700::1111'])('lets the public IPv6 spelling %s through', (address) => {
    expect(forbiddenAddress(address)).toBeUndefined();
  });

  it('treats IPv6 spellings of private IPv4 like the IPv4 when private networks are allowed', () => {
    const allow = { allowPrivateNetworks: true };
    expect(forbiddenAddress('::ffff:7f00:1', allow)).toBeUndefined();
    expect(forbiddenAddress('::ffff:a00:1', allow)).toBeUndefined();
    expect(forbiddenAddress('::ffff:a9fe:a9fe', allow)).toContain('link-local');
    expect(forbiddenAddress('::7f00:1', allow)).toContain('IPv4-compatible');
    expect(forbiddenAddress('64:ff9b::7f00:1', allow)).toContain('NAT64');
  });

  it('names the address as it was given, so callers can reword the reason', () => {
    expect(forbiddenAddress('::ffff:7f00:1')).toBe('::ffff:7f00:1 is a loopback address');
  });

  it('lets loopback and private ranges through when private networks are allowed, never link-local', () => {
    const allow = { allowPrivateNetworks: true };
    expect(forbiddenAddress('127.0.0.1', allow)).toBeUndefined();
    expect(forbiddenAddress('::1', allow)).toBeUndefined();
    expect(forbiddenAddress('10.0.0.5', allow)).toBeUndefined();
    expect(forbiddenAddress('169.254.169.254', allow)).toContain('link-local');
  });

  it('refuses anything that is not an IP literal', () => {
    expect(forbiddenAddress('example.com')).toContain('not an IP address');
  });
});
