/**
 * Secrets at rest (docs/architecture.md#secrets): code-host tokens are sealed with AES-256-GCM
 * under a key derived from the server's secret key, and bound to the row they belong to, so a
 * ciphertext copied onto another project does not open there. Only the code hosts open them.
 *
 * A sealed value reads `v1.<iv>.<tag>.<ciphertext>` (base64url): the version leaves room to rotate
 * the derivation or the cipher later without guessing what an old row holds.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/config.js';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed value that cannot be opened: tampered with, sealed under another key, or for another row. */
export class SecretError extends Error {
  override name = 'SecretError';
}

/** Seals and opens secrets under one key. `context` names what the secret belongs to (a project id). */
export interface SecretBox {
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
}

/**
 * 32 bytes for one purpose, derived (HKDF-SHA256) from the server's secret key: each use of the
 * secret key gets key material of its own.
 */
export function deriveKey(secretKey: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKey, 'agentjobs', purpose, 32));
}

/**
 * A box keyed from the server's secret key. The key string (32 random bytes in base64url, or the
 * operator's `AGENTJOBS_SECRET_KEY` of any form) goes through HKDF-SHA256, so whatever its shape the
 * cipher gets 32 uniform bytes, and this purpose gets a key of its own.
 */
export function createSecretBox(secretKey: string): SecretBox {
  if (secretKey.length < 32) throw new SecretError('The secret key must be at least 32 characters.');
  const key = deriveKey(secretKey, 'code-host-token v1');
  return {
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, iv, cipher.getAuthTag(), ciphertext]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },
    open(sealed, context) {
      const [version, iv, tag, ciphertext, ...rest] = sealed.split('.');
      if (
        version !== VERSION ||
        iv === undefined ||
        tag === undefined ||
        ciphertext === undefined ||
        rest.length
      )
        throw new SecretError('The stored secret is not in a known format.');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), {
          authTagLength: TAG_BYTES,
        });
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([
          decipher.update(Buffer.from(ciphertext, 'base64url')),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        // Never say more: the cause is the same to a reader (wrong key, or the value was changed).
        throw new SecretError(
          'The stored secret cannot be opened: it was changed, or sealed under another secret key (AGENTJOBS_SECRET_KEY or <data>/secret.key).',
        );
      }
    },
  };
}

/**
 * Reads the server's secret key (for encrypting code-host tokens) from the config, or from the
 * data directory, making one there on first start so a newcomer has nothing to set up.
 */
export function ensureSecretKey(config: Pick<Config, 'secretKey' | 'dataDir'>): string {
  if (config.secretKey) return config.secretKey;
  const file = path.join(config.dataDir, 'secret.key');
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(file, randomBytes(32).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return fs.readFileSync(file, 'utf8').trim();
}

/**
 * The process's secret box, made from the server's key when first needed, so a server that seals
 * nothing (only local projects, no webhooks) never makes a key. Built once, where the process's
 * parts are wired (`server.ts`, a CLI command), and handed to every part that seals or opens.
 */
export function lazySecretBox(config: Pick<Config, 'secretKey' | 'dataDir'>): () => SecretBox {
  let box: SecretBox | null = null;
  return () => {
    box ??= createSecretBox(ensureSecretKey(config));
    return box;
  };
}
