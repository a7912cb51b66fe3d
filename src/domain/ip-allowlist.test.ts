import { describe, expect, it } from 'vitest';
import { parseAllowlistEntry } from './ip-allowlist.js';

describe('parseAllowlistEntry', () => {
  it('reads addresses and ranges of both families', () => {
    expect(parseAllowlistEntry('203.0.113.7')).toEqual({
      address: '203.0.113.7',
      prefix: 32,
      family: 'ipv4',
    });
    expect(parseAllowlistEntry(' 10.0.0.0/8 ')).toEqual({ address: '10.0.0.0', prefix: 8, family: 'ipv4' });
    expect(parseAllowlistEntry('2001:db8::/32')).toEqual({
      address: '2001:db8::',
      prefix: 32,
      family: 'ipv6',
    });
  });

  it('refuses what is not an address or has a bad prefix', () => {
    expect(() => parseAllowlistEntry('example.com')).toThrow(/not an IP address/);
    expect(() => parseAllowlistEntry('10.0.0.0/33')).toThrow(/bad prefix/);
    expect(() => parseAllowlistEntry('10.0.0.0/+8')).toThrow(/bad prefix/);
    expect(() => parseAllowlistEntry('::1/129')).toThrow(/bad prefix/);
  });
});
