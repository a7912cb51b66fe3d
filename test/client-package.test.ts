import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import type * as ClientModule from '../src/client/index.js';

const DIST = path.resolve('dist/client');
/** What the client may import besides its own files: its runtime dependencies, nothing of the server. */
const ALLOWED_PACKAGES = new Set(['openapi-fetch', 'eventsource-parser/stream', 'standardwebhooks']);

// The built package as a user installs it: `agentjobs/client` through package.json `exports`.
const load = (): Promise<typeof ClientModule> => import(['agentjobs', 'client'].join('/'));

describe('the agentjobs/client package', () => {
  it('imports nothing outside dist/client but its own dependencies', () => {
    const files = fs.readdirSync(DIST).filter((file) => file.endsWith('.js'));
    expect(files).toContain('index.js');
    for (const file of files) {
      const source = fs
        .readFileSync(path.join(DIST, file), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      const specifiers = [...source.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]);
      for (const specifier of specifiers as string[]) {
        if (specifier.startsWith('.')) {
          const target = path.resolve(DIST, specifier);
          expect(path.dirname(target), `${file} imports ${specifier}`).toBe(DIST);
          expect(fs.existsSync(target), `${file} imports ${specifier}`).toBe(true);
        } else {
          expect(ALLOWED_PACKAGES.has(specifier), `${file} imports ${specifier}`).toBe(true);
        }
      }
    }
  });

  it('resolves through package.json exports, with its types', async () => {
    const client = await load();
    expect(typeof client.createClient).toBe('function');
    expect(typeof client.verifyWebhook).toBe('function');
    expect(new client.AgentJobsError('x', { status: 429, code: 'rate_limited' }).retryable).toBe(true);
    expect(fs.existsSync(path.join(DIST, 'index.d.ts'))).toBe(true);
    expect(fs.readFileSync(path.join(DIST, 'index.d.ts'), 'utf8')).toContain('createClient');
  });

  describe('verifyWebhook', () => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const body = JSON.stringify({
      type: 'job.completed',
      timestamp: new Date().toISOString(),
      data: { job: {} },
    });
    const signed = (payload: string, at = new Date(), key = secret) => ({
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(key).sign('msg_1', at, payload),
    });

    it('returns the payload of a request signed with the secret, whatever the headers look like', async () => {
      const { verifyWebhook } = await load();
      expect(verifyWebhook(body, signed(body), secret)).toMatchObject({ type: 'job.completed' });
      expect(verifyWebhook(Buffer.from(body), new Headers(signed(body)), secret).type).toBe('job.completed');
      const shouting = Object.fromEntries(
        Object.entries(signed(body)).map(([k, v]) => [k.toUpperCase(), [v]]),
      );
      expect(verifyWebhook(body, shouting, secret).type).toBe('job.completed');
    });

    it('refuses a changed body, another secret and an old timestamp', async () => {
      const { verifyWebhook, WebhookVerificationError } = await load();
      const other = `whsec_${randomBytes(24).toString('base64')}`;
      const hourAgo = new Date(Date.now() - 3600_000);
      expect(() => verifyWebhook(`${body} `, signed(body), secret)).toThrow(WebhookVerificationError);
      expect(() => verifyWebhook(body, signed(body, new Date(), other), secret)).toThrow(
        WebhookVerificationError,
      );
      expect(() => verifyWebhook(body, signed(body, hourAgo), secret)).toThrow(WebhookVerificationError);
      expect(() => verifyWebhook(body, {}, secret)).toThrow(WebhookVerificationError);
    });
  });
});
