import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSecretBox, lazySecretBox, SecretError } from './secrets.js';

const key = () => randomBytes(32).toString('base64url');

describe('secret box', () => {
  it('round-trips a token and never holds it in clear', () => {
    const box = createSecretBox(key());
    const sealed = box.seal('ghp_secret-token-value', 'project-1');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('secret-token');
    expect(box.open(sealed, 'project-1')).toBe('ghp_secret-token-value');
    // A fresh IV each time: equal tokens do not give equal ciphertexts.
    expect(box.seal('ghp_secret-token-value', 'project-1')).not.toBe(sealed);
  });

  it('detects tampering with any part', () => {
    const box = createSecretBox(key());
    const sealed = box.seal('token', 'p');
    const parts = sealed.split('.');
    for (const index of [1, 2, 3]) {
      const changed = [...parts];
      const part = Buffer.from(changed[index] as string, 'base64url');
      part[0] = (part[0] as number) ^ 1;
      changed[index] = part.toString('base64url');
      expect(() => box.open(changed.join('.'), 'p')).toThrow(SecretError);
    }
    expect(() => box.open('v2.a.b.c', 'p')).toThrow(/format/);
    expect(() => box.open('garbage', 'p')).toThrow(SecretError);
  });

  it('refuses another key and another row', () => {
    const sealed = createSecretBox(key()).seal('token', 'p');
    expect(() => createSecretBox(key()).open(sealed, 'p')).toThrow(/another secret key/);
    const box = createSecretBox('x'.repeat(32));
    expect(() => box.open(box.seal('token', 'p'), 'q')).toThrow(SecretError);
  });

  it('says nothing of the token or the key when it fails', () => {
    const secret = key();
    const box = createSecretBox(secret);
    try {
      createSecretBox(key()).open(box.seal('tok-12345678', 'p'), 'p');
    } catch (error) {
      expect(String((error as Error).message)).not.toContain('tok-12345678');
      expect(String((error as Error).message)).not.toContain(secret);
    }
    expect(() => createSecretBox('short')).toThrow(/32/);
  });
});

describe('the process secret box', () => {
  it('makes the key only when first used, and then gives the same box every time', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-box-'));
    try {
      const secrets = lazySecretBox({ secretKey: null, dataDir });
      expect(fs.existsSync(path.join(dataDir, 'secret.key'))).toBe(false);
      const box = secrets();
      expect(fs.existsSync(path.join(dataDir, 'secret.key'))).toBe(true);
      expect(secrets()).toBe(box);
      expect(box.open(box.seal('token', 'project:1'), 'project:1')).toBe('token');
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
