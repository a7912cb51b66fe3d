/**
 * Pushes from a mirror to its origin, in batches: while one `git push` of a mirror runs, the runs
 * that want to push from it wait, and the next `git push` carries all their refspecs at once. A
 * push costs a handful of processes on both ends (`pack-objects`, `receive-pack`, `unpack-objects`
 * or `index-pack`, a connectivity `rev-list`, `gc --auto`) whatever the number of refs, so a burst
 * of runs finishing together pays that once per batch instead of once per run; a push that finds no
 * other waiting costs what it did before.
 *
 * Each run still learns its own result: `--porcelain` prints one line per ref, and a ref the remote
 * refused fails only the run that asked for it, with git's words for that ref. A push that fails as
 * a whole (credentials, network, timeout) fails every run in it. Refs are never pushed atomically:
 * one run's refusal must not hold back another's branch.
 */
import { resolve } from 'node:path';
import { assertBranchName } from './mirror.js';
import { GitError, runGit } from './run.js';

/** One ref to push. */
export interface PushRef {
  /** What to push: a ref of the mirror (`refs/heads/x`) or a commit id. */
  source: string;
  /** The remote ref it goes to (`refs/heads/x`). */
  destination: string;
  /** Overwrite the remote ref even when the push is not a fast-forward. */
  force?: boolean;
  /**
   * Overwrite the remote ref, not a fast-forward, only while it is still at this commit
   * (`--force-with-lease`): a branch made again must not lose a commit pushed since it was read.
   */
  expect?: string;
}

/** Options of `pushRef`. */
export interface PushRefOptions extends PushRef {
  /** The mirror (a bare repository whose `origin` is the project's repository). */
  mirrorPath: string;
  /** Credentials for the push, from `askpassEnv`; `{}` for none. Only pushes with equal env share a batch. */
  env: Record<string, string>;
  /** Limit for the `git push` this ref travels in (the longest of the batch applies). */
  timeoutMs?: number;
  /** Stops waiting. A ref still waiting for its batch is withdrawn; one being pushed may still arrive. */
  signal?: AbortSignal;
}

interface Waiting {
  options: PushRefOptions;
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface Queue {
  running: boolean;
  waiting: Waiting[];
}

const queues = new Map<string, Queue>();

/**
 * Pushes one ref from the mirror to origin, in the next batch of that mirror (see the module doc).
 * Rejects with a `GitError` whose `stderr` holds what git said about this ref.
 */
export function pushRef(options: PushRefOptions): Promise<void> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(new GitError('push', 'aborted', null, ''));
  if (options.source.startsWith('-') || options.destination.startsWith('-'))
    return Promise.reject(new GitError('push', 'exit', null, `invalid refspec: ${options.destination}`));
  // Credentials decide who pushes: only pushes with the same ones may share a `git push`.
  const key = `${resolve(options.mirrorPath)}\0${JSON.stringify(Object.entries(options.env).sort())}`;
  let queue = queues.get(key);
  if (!queue) {
    queue = { running: false, waiting: [] };
    queues.set(key, queue);
  }
  const current = queue;
  return new Promise<void>((resolvePush, rejectPush) => {
    const entry: Waiting = { options, resolve: resolvePush, reject: rejectPush };
    const onAbort = () => {
      const index = current.waiting.indexOf(entry);
      if (index >= 0) current.waiting.splice(index, 1);
      rejectPush(new GitError('push', 'aborted', null, ''));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => signal?.removeEventListener('abort', onAbort);
    entry.resolve = () => {
      done();
      resolvePush();
    };
    entry.reject = (error) => {
      done();
      rejectPush(error);
    };
    current.waiting.push(entry);
    if (!current.running) void drain(key, current);
  });
}

/** Pushes batches until nobody waits. */
async function drain(key: string, queue: Queue): Promise<void> {
  queue.running = true;
  try {
    while (queue.waiting.length > 0) {
      // git refuses two refspecs with one destination in a push: the second waits for the next batch.
      const destinations = new Set<string>();
      const batch: Waiting[] = [];
      for (const entry of [...queue.waiting]) {
        if (destinations.has(entry.options.destination)) continue;
        destinations.add(entry.options.destination);
        batch.push(entry);
        queue.waiting.splice(queue.waiting.indexOf(entry), 1);
      }
      await pushBatch(batch);
    }
  } finally {
    queue.running = false;
    if (queues.get(key) === queue && queue.waiting.length === 0) queues.delete(key);
  }
}

async function pushBatch(batch: Waiting[]): Promise<void> {
  const first = batch[0]?.options as PushRefOptions;
  const timeouts = batch.map((entry) => entry.options.timeoutMs);
  const timeoutMs = timeouts.includes(undefined) ? undefined : Math.max(...(timeouts as number[]));
  const refspecs = batch.map(
    ({ options }) => `${options.force ? '+' : ''}${options.source}:${options.destination}`,
  );
  const leases = batch
    .filter(({ options }) => options.expect !== undefined)
    .map(({ options }) => `--force-with-lease=${options.destination}:${options.expect}`);
  let result: Awaited<ReturnType<typeof runGit>>;
  try {
    // Exit 1 with per-ref lines: some refs were refused (read below); a push failing as a whole
    // (no such remote, credentials, network) exits 128 and fails every ref with its error.
    result = await runGit(['push', '--porcelain', '--no-verify', ...leases, 'origin', ...refspecs], {
      cwd: first.mirrorPath,
      env: first.env,
      acceptExitCodes: [1],
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    });
  } catch (error) {
    for (const entry of batch) entry.reject(error);
    return;
  }
  // `<flag>\t<source>:<destination>\t<summary>`; `!` marks a refused ref.
  const reported = new Map<string, { ok: boolean; line: string }>();
  for (const line of result.stdout.toString('utf8').split('\n')) {
    const match = /^(.)\t[^\t]*:([^\t:]+)\t/.exec(line);
    if (match) reported.set(match[2] as string, { ok: match[1] !== '!', line });
  }
  for (const entry of batch) {
    const { destination } = entry.options;
    const own = reported.get(destination);
    if (own?.ok) {
      entry.resolve();
      continue;
    }
    const others = batch.map((other) => other.options.destination).filter((name) => name !== destination);
    // What git said that concerns this ref: its own line, and the messages that name no other ref.
    const said = result.stderr
      .split('\n')
      .filter((line) => !others.some((name) => line.includes(name)))
      .join('\n');
    const line = own?.line ?? `git push did not report ${destination}`;
    entry.reject(new GitError('push', 'exit', result.exitCode, `${line}\n${said}`.trim()));
  }
}

/** Options of `pushBranch`. */
export interface PushBranchOptions {
  mirrorPath: string;
  branch: string;
  /** Credentials for the push, from `askpassEnv`; `{}` for none. */
  env: Record<string, string>;
  /** Overwrite the remote branch even when it is not an ancestor (a retried run starts over). */
  force?: boolean;
  /** Overwrite it only while it is at this commit (`PushRef.expect`); null or absent: fast-forward only. */
  expect?: string | null | undefined;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Pushes the mirror's `refs/heads/<branch>` to the same branch of origin, in one `git push` with
 * the other runs pushing from this mirror at that moment (`pushRef`).
 */
export async function pushBranch(options: PushBranchOptions): Promise<void> {
  const ref = `refs/heads/${options.branch}`;
  // The name is checked by git only when the push fails: a run's branch was made by git already.
  await pushRef({
    mirrorPath: options.mirrorPath,
    source: ref,
    destination: ref,
    env: options.env,
    ...(options.force ? { force: true } : {}),
    ...(options.expect ? { expect: options.expect } : {}),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.signal ? { signal: options.signal } : {}),
  }).catch(async (error: unknown) => {
    await assertBranchName(options.branch);
    throw error;
  });
}
