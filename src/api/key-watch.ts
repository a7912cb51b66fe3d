import type { FastifyBaseLogger } from 'fastify';
import { backgroundLoop } from '../background/loop.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import { keyRefusal } from './auth.js';

/** Told why its key may no longer be used; called once, then forgotten. */
export type EndForKey = (reason: string) => void;

/** Watches the keys that hold something open; see `watchKeys`. */
export interface KeyWatch {
  /** Calls `end` once `keyId` is revoked, expires or is gone; the returned function stops watching. */
  watch(keyId: string, end: EndForKey): () => void;
  /** Stops every watch, for the server's close; resolves once a running check is over. */
  stop(): Promise<void>;
}

export interface KeyWatchOptions {
  store: Pick<Store, 'apiKeys'>;
  log: FastifyBaseLogger;
  /** How often the watched keys are read again: the bound on how late a revocation is seen. */
  everyMs: number;
}

/**
 * A key is checked when a request arrives, but an event stream outlives its request. This reads
 * every key that holds a stream open again every `everyMs`, in one query for the whole process
 * however many streams there are, and ends the streams of a key that is no longer good. It reads
 * the rows, so a revocation by another process (the CLI, another API instance) is seen as soon
 * as one by this one, and it reads only while a stream is open. It runs on the background loop.
 */
export function watchKeys({ store, log, everyMs }: KeyWatchOptions): KeyWatch {
  const watchers = new Map<string, Set<EndForKey>>();
  let started = false;

  /** Reads the watched keys again (nothing while no stream is open) and ends what is no longer good. */
  async function check(): Promise<undefined> {
    if (watchers.size === 0) return undefined;
    const ids = [...watchers.keys()];
    const found = new Map((await store.apiKeys.findByIds(ids)).map((key) => [key.id, key]));
    const now = Date.now();
    for (const id of ids) {
      const reason = keyRefusal(found.get(id), now);
      const ends = watchers.get(id);
      if (reason === undefined || !ends) continue;
      watchers.delete(id);
      for (const end of ends) end(reason);
    }
    return undefined;
  }

  // A failed read is logged once per outage and tried again; the streams read the same database
  // and end by themselves if it stays away.
  const loop = backgroundLoop({
    name: 'checking the keys of open event streams',
    logger: log as Logger,
    pollMs: everyMs,
    pass: check,
  });

  return {
    watch(keyId, end) {
      let ends = watchers.get(keyId);
      if (!ends) {
        ends = new Set();
        watchers.set(keyId, ends);
      }
      ends.add(end);
      // The loop starts with the first stream: a process that never streams never reads.
      if (!started) {
        started = true;
        void loop.start();
      }
      return () => {
        const current = watchers.get(keyId);
        current?.delete(end);
        if (current?.size === 0) watchers.delete(keyId);
      };
    },
    async stop() {
      watchers.clear();
      await loop.stop();
    },
  };
}
