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
