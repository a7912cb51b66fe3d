import { describe, expect, it } from 'vitest';
import { embeddedAddressRows } from '../../test/support/webhook-addresses.js';
import { checkWebhookUrl, type Resolve } from './address.js';

const resolving =
  (table: Record<string, string[]>): Resolve =>
  async (host) => {
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

describe('checkWebhookUrl', () => {
  const resolve = resolving({
    'hooks.example.com': ['93.184.215.14'],
    'mixed.example.com': ['93.184.215.14', '10.0.0.7'],
    'inside.example.com': ['192.168.1.5'],
    'meta.example.com': ['169.254.169.254'],
    'nat64.example.com': ['2606:4700::1111', '64:ff9b::a9fe:a9fe'],
  });

  it('accepts a name that resolves to public addresses only', async () => {
    await expect(checkWebhookUrl('https://hooks.example.com/h', false, resolve)).resolves.toBeUndefined();
  });

  it.each([
    [
      'https://mixed.example.com/h',
      false,
      'The URL is not allowed: mixed.example.com resolves to 10.0.0.7, a private address (AGENTJOBS_WEBHOOK_ALLOW_PRIVATE=true allows it).',
    ],
    ['https://inside.example.com/h', false, 'private address'],
    ['https://meta.example.com/h', true, 'meta.example.com resolves to 169.254.169.254, a metadata address.'],
    [
      'https://nat64.example.com/h',
      true,
      'resolves to 64:ff9b::a9fe:a9fe, a NAT64 address for 169.254.169.254',
    ],
    ['https://nowhere.example.com/h', true, 'The URL is not allowed: nowhere.example.com does not resolve.'],
    ['http://[64:ff9b::a9fe:a9fe]/h', true, 'The URL is not allowed: 64:ff9b::a9fe:a9fe is a NAT64 address'],
  ])('refuses %s (private allowed: %s)', async (url, allowPrivate, message) => {
    await expect(checkWebhookUrl(url, allowPrivate, resolve)).rejects.toThrow(message);
  });

  it('lets private names through when allowed', async () => {
    await expect(checkWebhookUrl('https://inside.example.com/h', true, resolve)).resolves.toBeUndefined();
  });
});

// Each IPv6 form that carries an IPv4 address, as what a host name resolves to when it is saved.
describe.each(embeddedAddressRows)('a name that resolves to $form ($address)', (row) => {
  const resolve: Resolve = async () => [{ address: row.address, family: 6 }];
  it('is refused by default', async () => {
    await expect(checkWebhookUrl('https://hooks.example.com/h', false, resolve)).rejects.toThrow(
      `The URL is not allowed: hooks.example.com resolves to ${row.address}, ${row.says}`,
    );
  });
  it(`is ${row.refusedWhenAllowed ? 'refused' : 'allowed'} with private targets allowed`, async () => {
    const check = checkWebhookUrl('https://hooks.example.com/h', true, resolve);
    if (row.refusedWhenAllowed) await expect(check).rejects.toThrow(row.says);
    else await expect(check).resolves.toBeUndefined();
  });
});
