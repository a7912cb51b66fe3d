import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/**
 * ulid draws each of an id's random characters with its own `crypto.getRandomValues` call, and
 * each call reaches OpenSSL, which makes a system call to check for a fork: a create spent more on
 * its ids than on its SQL. The same generator filling a pool of bytes at a time makes one call per
 * pool. A byte divided by 256 picks one of ulid's 32 characters with no bias.
 */
const pool = new Uint8Array(4096);
let used = pool.length;
function pooledRandom(): number {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  return (pool[used++] as number) / 256;
}

const ulid = monotonicFactory(pooledRandom);

/** Opaque, URL-safe, unique and time-sortable (a ULID): sorting ids sorts by creation time. */
export const newId = (): string => ulid();

/** Ids we issue are ULIDs; anything else in a path cannot name one of our rows. */
export const ID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;
