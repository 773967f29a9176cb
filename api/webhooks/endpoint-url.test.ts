// Endpoint URLs: the syntax refusals, and the address check for literals in
// every spelling the URL parser produces (decimal, hex-mapped IPv6) and for
// names by what they resolve to — `localhost` through the real resolver.
import { describe, expect, it } from 'vitest';
import { endpointUrlSchema, forbiddenUrl } from './endpoint-url.ts';

const syntax = (url: string) => {
  const parsed = endpointUrlSchema.safeParse(url);
  return parsed.success ? undefined : parsed.error.issues[0].message;
};

describe('endpoint URL syntax', () => {
  it.each([
    ['hooks.example.com/x', /absolute URL/],
    ['ws://93.184.216.34/x', /http or https, not ws/],
    ['file:///etc/passwd', /http or https, not file/],
    ['https://a:b@93.184.216.34/', /credentials/],
    ['https://a@93.184.216.34/', /credentials/],
    [`https://93.184.216.34/${'x'.repeat(2030)}`, /at most 2048/],
  ])('refuses %s', (url, why) => {
    expect(syntax(url)).toMatch(why);
  });

  it('takes an absolute http(s) URL', () => {
    expect(syntax('https://hooks.example.com:8443/orca?team=a')).toBeUndefined();
    expect(syntax('http://93.184.216.34/')).toBeUndefined();
  });
});

describe('where an endpoint URL points', () => {
  it.each([
    ['http://127.0.0.1/', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[::ffff:a9fe:a9fe]/', 'link-local'],
    ['http://[::1]/', 'loopback'],
    ['http://localhost/', 'resolves to'],
  ])('refuses %s (%s)', async (url, why) => {
    expect(await forbiddenUrl(url, {})).toContain(why);
  });

  it('lets public addresses and names that do not resolve through', async () => {
    expect(await forbiddenUrl('https://93.184.216.34/', {})).toBeUndefined();
    expect(await forbiddenUrl('https://[2606:4700:4700::1111]/', {})).toBeUndefined();
    expect(await forbiddenUrl('https://no-such-host.invalid/', {})).toBeUndefined();
  });

  it('lets loopback through with private networks allowed, never link-local', async () => {
    expect(await forbiddenUrl('http://localhost:8080/', { allowPrivateNetworks: true })).toBeUndefined();
    expect(await forbiddenUrl('http://[::ffff:127.0.0.1]/', { allowPrivateNetworks: true })).toBeUndefined();
    expect(await forbiddenUrl('http://169.254.169.254/', { allowPrivateNetworks: true })).toContain('link-local');
  });
});
