import { hash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * Admin API keys: `ajs_` + 40 random base62 characters + a 6-character base62 CRC32 of them.
 * The checksum lets secret scanners (and our own auth) reject a mistyped or made-up key without
 * a database lookup. Only the SHA-256 of a key is ever stored.
 */
export const KEY_PREFIX = 'ajs_';
const RANDOM_LENGTH = 40;
const CHECKSUM_LENGTH = 6;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);

export const KEY_SCOPES = ['read', 'write'] as const;
/**
 * How long a new key lives unless its maker says otherwise, on every surface (the dashboard and
 * `agentjobs key create`): a key that leaks, or that a pipeline nobody owns any more keeps,
 * stops working by itself. A key that must not expire says so ("never").
 */
export const DEFAULT_KEY_EXPIRY_DAYS = 90;
export type KeyScope = (typeof KEY_SCOPES)[number];

function checksum(random: string): string {
  let value = crc32(random);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

/** A new key. `randomInt` draws each character uniformly (no modulo bias). */
export function generateKey(): string {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += BASE62[randomInt(62)];
  return `${KEY_PREFIX}${random}${checksum(random)}`;
}

/**
 * True when `key` has our shape and its checksum matches. Says nothing about whether it exists.
 * A plain comparison is enough: the checksum is computed from the key's own characters, so
 * timing it tells a caller nothing they could not compute themselves.
 */
export function isWellFormedKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const random = key.slice(KEY_PREFIX.length, KEY_PREFIX.length + RANDOM_LENGTH);
  return checksum(random) === key.slice(KEY_PREFIX.length + RANDOM_LENGTH);
}

/**
 * What we store and look up: hex SHA-256 of the whole key. Every authenticated request hashes;
 * the one-shot `hash` costs less than half of a `createHash` object.
 */
export const hashKey = (key: string): string => hash('sha256', key, 'hex');

/**
 * Compares two hex digests in constant time (for equal lengths). Characters are compared
 * directly: converting both to buffers for `timingSafeEqual` cost more than the comparison.
 */
export function sameHash(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/** The part of a key that is safe to show again in lists: the prefix and four characters. */
export const displayPrefix = (key: string): string => key.slice(0, KEY_PREFIX.length + 4);
