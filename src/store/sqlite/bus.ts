import { EventEmitter } from 'node:events';
import { resolve } from 'node:path';
import { assertChannel, callListener, type NotificationListener, type Unlisten } from '../notify.js';

const emitters = new Map<string, EventEmitter>();

/**
 * The in-process bus of a SQLite database. Shared by every `Db` of the same file in this process,
 * so an API and a worker with separate handles on one file still hear each other. Other processes
 * on the same file are reached only by their fallback poll.
 */
export function sqliteBus(file: string): EventEmitter {
  const key = file === ':memory:' ? `:memory:${Math.random()}` : resolve(file);
  let emitter = emitters.get(key);
  if (!emitter) {
    emitter = new EventEmitter();
    emitter.setMaxListeners(0);
    if (file !== ':memory:') emitters.set(key, emitter);
  }
  return emitter;
}

export function listenOnBus(bus: EventEmitter, channel: string, listener: NotificationListener): Unlisten {
  assertChannel(channel);
  const handler = (payload: string) => callListener(listener, payload);
  bus.on(channel, handler);
  return async () => {
    bus.off(channel, handler);
  };
}
