import type { FastifyBaseLogger } from 'fastify';
import type { Store } from '../store/store.js';
import { keyRefusal } from './auth.js';

/** Told why its key may no longer be used; called once, then forgotten. */
export type EndForKey = (reason: string) => void;

/** Watches the keys that hold something open; see `watchKeys`. */
export interface KeyWatch {
  /** Calls `end` once `keyId` is revoked, expires or is gone; the returned function stops watching. */
  watch(keyId: string, end: EndForKey): () => void;
  /** Stops every watch, for the server's close. */
  stop(): void;
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
 * as one by this one, and it reads only while a stream is open.
 */
export function watchKeys({ store, log, everyMs }: KeyWatchOptions): KeyWatch {
  const watchers = new Map<string, Set<EndForKey>>();
  let timer: NodeJS.Timeout | undefined;
  // True from the moment a check is scheduled until it has finished, so that checks never overlap.
  let pending = false;
  let stopped = false;

  const schedule = () => {
    if (pending || stopped || watchers.size === 0) return;
    pending = true;
    // Unref'd: a watch must never keep a stopping process alive.
    timer = setTimeout(check, everyMs).unref();
  };

  async function check() {
    try {
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
    } catch (error) {
      // The streams read the same database; they end by themselves if it stays away.
      log.warn({ err: error }, 'could not check the keys of open event streams');
    } finally {
      pending = false;
      schedule();
    }
  }

  return {
    watch(keyId, end) {
      let ends = watchers.get(keyId);
      if (!ends) {
        ends = new Set();
        watchers.set(keyId, ends);
      }
      ends.add(end);
      schedule();
      return () => {
        const current = watchers.get(keyId);
        current?.delete(end);
        if (current?.size === 0) watchers.delete(keyId);
      };
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      watchers.clear();
    },
  };
}
