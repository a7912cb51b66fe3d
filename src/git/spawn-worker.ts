/**
 * A thread of spawner.ts: runs the git commands the main thread posts (exec.ts) and posts back how
 * each ended. Starting a process blocks the thread that starts it until the child has exec'd, a
 * few milliseconds each and more on a busy machine; here that blocks this thread, not the service.
 */
import { parentPort } from 'node:worker_threads';
import { execGit, type GitExecRequest } from './exec.js';

/** What the main thread posts: a command to run, or the id of one to abort. */
export type SpawnMessage = { id: number; request: GitExecRequest } | { id: number; abort: true };

const running = new Map<number, AbortController>();

parentPort?.on('message', (message: SpawnMessage) => {
  if ('abort' in message) {
    running.get(message.id)?.abort();
    return;
  }
  const controller = new AbortController();
  running.set(message.id, controller);
  void execGit(message.request, controller.signal).then((outcome) => {
    running.delete(message.id);
    parentPort?.postMessage({ id: message.id, outcome });
  });
});
