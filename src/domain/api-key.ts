/** API keys as records: who may call the API for a project, and how. The key format is in `keys.ts`. */
import type { KeyScope } from './keys.js';

/** An API key's record. It never holds the key itself, only its hash. */
export interface ApiKey {
  id: string;
  projectId: string;
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
  projectId: string;
  /** The plaintext key; only its hash and display prefix are written. */
  key: string;
  name: string;
  scopes: KeyScope[];
  ipAllowlist?: string[] | null;
  expiresAt?: string | null;
}
