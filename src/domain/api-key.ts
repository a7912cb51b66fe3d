/** API keys as records: who may call the API for a project (or for every project), and how. The key format is in `keys.ts`. */
import type { KeyScope } from './keys.js';

/** An API key's record. It never holds the key itself, only its hash. */
export interface ApiKey {
  id: string;
  /**
   * The project the key works on, or null for an instance key, which works on every project (the
   * hosted API's organisation keys). Scopes, expiry, allowlist and revocation are the same.
   */
  projectId: string | null;
  name: string;
  prefix: string;
  scopes: KeyScope[];
  ipAllowlist: string[] | null;
  expiresAt: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** The record with the key's hash, for the one check that compares it. */
export interface ApiKeyWithHash extends ApiKey {
  keyHash: string;
}

/** A key to store. */
export interface NewApiKey {
  /** Null makes an instance key. */
  projectId: string | null;
  /** The plaintext key; only its hash and display prefix are written. */
  key: string;
  name: string;
  scopes: KeyScope[];
  ipAllowlist?: string[] | null;
  expiresAt?: string | null;
}
