import { describe, expect, it } from 'vitest';
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
  });

  it('accepts a name that resolves to public addresses only', async () => {
    await expect(checkWebhookUrl('https://hooks.example.com/h', false, resolve)).resolves.toBeUndefined();
  });

  it.each([
    ['https://mixed.example.com/h', false, 'mixed.example.com resolves to 10.0.0.7 is a private address'],
    ['https://inside.example.com/h', false, 'private address'],
    ['https://meta.example.com/h', true, 'metadata address'],
    ['https://nowhere.example.com/h', true, 'does not resolve'],
  ])('refuses %s (private allowed: %s)', async (url, allowPrivate, message) => {
    await expect(checkWebhookUrl(url, allowPrivate, resolve)).rejects.toThrow(message);
  });

  it('lets private names through when allowed', async () => {
    await expect(checkWebhookUrl('https://inside.example.com/h', true, resolve)).resolves.toBeUndefined();
  });
});
