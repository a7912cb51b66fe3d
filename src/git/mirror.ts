/**
 * One bare mirror per project in the data directory (docs/architecture.md#the-queue-and-its-fencing). Upstream branches are fetched
 * onto the mirror's own `refs/heads/*`, and job branches live beside them, so a worktree can be
 * made from `refs/heads/<base>` and a job branch pushed as `refs/heads/<branch>`.
 *
 * Because both share `refs/heads/*`, a plain `fetch --prune` would delete (or refuse to update) a
 * job branch that a worktree is working on. Each fetch therefore excludes, with negative refspecs,
 * the branches currently checked out in a worktree, and worktree creation takes the same mirror
 * lock as the fetch so no branch appears between the two.
 *
 * Sharing between processes: a mirror (and so a data directory) may be used by any number of
 * processes of one machine at once, such as two workers started in the same folder. The mirror lock
 * is a lock file beside the mirror (`<projectId>.git.lock`, see `file-lock.ts`) as well as a promise
 * chain inside each process, and git records every worktree in the mirror itself, so a fetch in one
 * process sees, and leaves alone, the branches of another process's worktrees. Job branches outside
 * a worktree follow upstream: a run pushes its branch before it removes its worktree.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { JobFailure } from '../domain/errors.js';
import { withFileLock } from './file-lock.js';
import { runGit } from './run.js';

/** The refspec that makes the mirror's branches the upstream's branches. */
export const MIRROR_REFSPEC = '+refs/heads/*:refs/heads/*';

/** A project or repository setting that cannot be used to make a mirror. */
export class MirrorError extends JobFailure<'repository_error'> {
  override name = 'MirrorError';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('repository_error', message, options);
  }
}

const chains = new Map<string, Promise<unknown>>();

/** Batched tasks waiting for the mirror together (see `withMirrorLock`), not yet started. */
interface SharedGroup {
  tasks: {
    run: () => Promise<unknown>;
    resolve: (value: unknown) => void;
    reject: (error: unknown) => void;
  }[];
}
const openGroups = new Map<string, SharedGroup>();

/** Appends `locked` to the mirror's promise chain in this process. */
function enqueue<T>(key: string, locked: () => Promise<T>): Promise<T> {
  const previous = chains.get(key) ?? Promise.resolve();
  const run = previous.then(locked, locked);
  const tail = run.then(
    () => {},
    () => {},
  );
  chains.set(key, tail);
  void tail.then(() => {
    if (chains.get(key) === tail) chains.delete(key);
  });
  return run;
}

/**
 * Runs `task` alone on the mirror: after every earlier task of this process for it has settled (a
 * promise chain per mirror, so one waiter per process polls the file), and while holding the mirror's
 * lock file against other processes. Fetches and worktree creation go through it; reads never need
 * it. `signal` gives up waiting for another process.
 *
 * `batch: true` tasks (adding and removing worktrees: short, and many at once in a burst) that
 * arrive while a batch waits for the mirror join it, and the batch runs them one after the other
 * under one holding of the lock, so a burst pays for the lock once, not once per job. Not side by
 * side: `git worktree add` reads every worktree's record, and one being written makes it fail.
 */
export function withMirrorLock<T>(
  mirrorPath: string,
  task: () => Promise<T>,
  options: { signal?: AbortSignal; batch?: boolean } = {},
): Promise<T> {
  const key = resolve(mirrorPath);
  const lockFile = `${key}.lock`;
  const holding = async <R>(inside: () => Promise<R>, signal?: AbortSignal) => {
    await mkdir(dirname(key), { recursive: true });
    return withFileLock(lockFile, inside, signal ? { signal } : {});
  };
  if (!options.batch) return enqueue(key, () => holding(task, options.signal));

  let group = openGroups.get(key);
  if (!group) {
    const created: SharedGroup = { tasks: [] };
    group = created;
    openGroups.set(key, created);
    void enqueue(key, async () => {
      // Started: later tasks form the next batch.
      if (openGroups.get(key) === created) openGroups.delete(key);
      try {
        await holding(async () => {
          for (const entry of created.tasks) await entry.run().then(entry.resolve, entry.reject);
        });
      } catch (error) {
        for (const entry of created.tasks) entry.reject(error);
      }
    });
  }
  const joined = group;
  return new Promise<T>((resolveTask, rejectTask) => {
    joined.tasks.push({ run: task, resolve: resolveTask as (value: unknown) => void, reject: rejectTask });
  });
}

/**
 * Checks and normalizes a project's repository: a local path (made absolute), a `file://` URL or
 * an `https://` URL without credentials (tokens travel through `askpassEnv`, never in a URL).
 * Other schemes are refused: `ext::` runs commands, `http://` would send a token in clear, except
 * to this machine's loopback (a host served on the same machine, and the tests' git server), where
 * nothing crosses a network.
 */
export function normalizeRepository(repository: string): string {
  if (repository.length === 0 || /[\0\r\n]/.test(repository))
    throw new MirrorError('The repository is empty or malformed.');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(repository)) {
    let url: URL;
    try {
      url = new URL(repository);
    } catch {
      throw new MirrorError('The repository URL cannot be parsed.');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'file:' && !isLoopbackHttp(url)) {
      throw new MirrorError(`Repository URLs must use https:// or file://, not ${url.protocol}//.`);
    }
    if (url.username || url.password) {
      throw new MirrorError(
        'The repository URL must not contain credentials; configure a token for the project instead.',
      );
    }
    return repository;
  }
  if (repository.includes('::'))
    throw new MirrorError('Git remote helpers (`transport::address`) are not allowed.');
  // A relative path is relative to the service, not to the mirror git would run in.
  return resolve(repository);
}

function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

/** Options of `ensureMirror`. */
export interface EnsureMirrorOptions {
  /** Folder holding the mirrors, e.g. `<data>/mirrors`. */
  mirrorsDir: string;
  /** Names the mirror (`<projectId>.git`); letters, digits, `-`, `_` and `.` only. */
  projectId: string;
  /** Local path, `file://` or `https://` URL of the project's repository. */
  repository: string;
  /** Credentials for the fetch, from `askpassEnv`; `{}` for none. */
  env: Record<string, string>;
  /**
   * The mirror must reflect upstream as of this moment (`performance.now()`) or later: a fetch of
   * this process that started then or since serves, one that started earlier does not. A worker
   * passes the moment its run began. Default: the moment of the call.
   */
  freshSince?: number;
  timeoutMs?: number;
  /** Stops waiting (the shared fetch goes on for the others waiting on it). */
  signal?: AbortSignal;
}

/** Per mirror: the last fetch that started, and the next one, while it still waits for the lock. */
interface FetchState {
  last: { startedAt: number; done: Promise<string> } | null;
  next: Promise<string> | null;
}
const fetches = new Map<string, FetchState>();

/**
 * Makes the project's bare mirror exist and be up to date with upstream, and returns its path.
 * The first call creates it in a temporary folder and renames it into place only once the first
 * fetch succeeded, so a crash never leaves a half-made mirror; later calls `fetch --prune`.
 *
 * One fetch serves every caller it is fresh enough for (see `freshSince`): a burst of jobs on one
 * project waits for at most the fetch under way and the one after it, not for one fetch each.
 * Callers that arrive while a fetch runs share the next one; a failed fetch serves nobody after it.
 */
export async function ensureMirror(options: EnsureMirrorOptions): Promise<string> {
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(options.projectId)) {
    throw new MirrorError(`Invalid project id for a mirror name: ${JSON.stringify(options.projectId)}.`);
  }
  const url = normalizeRepository(options.repository);
  const mirrorPath = resolve(options.mirrorsDir, `${options.projectId}.git`);
  const since = options.freshSince ?? performance.now();
  let state = fetches.get(mirrorPath);
  if (!state) {
    state = { last: null, next: null };
    fetches.set(mirrorPath, state);
  }
  const current = state;
  if (current.last && current.last.startedAt >= since) return untilAborted(current.last.done, options.signal);
  if (!current.next) {
    // No signal: one caller giving up must not end the fetch the others wait for.
    const run = { env: options.env, timeoutMs: options.timeoutMs, signal: undefined };
    const next = withMirrorLock(mirrorPath, async () => {
      current.next = null;
      const done = createOrFetch(mirrorPath, url, run);
      const started = { startedAt: performance.now(), done };
      current.last = started;
      done.catch(() => {
        if (current.last === started) current.last = null;
      });
      return done;
    });
    current.next = next;
    // A fetch that could not even wait for the lock lets the next caller try again.
    next.catch(() => {
      if (current.next === next) current.next = null;
    });
  }
  return untilAborted(current.next as Promise<string>, options.signal);
}

async function createOrFetch(
  mirrorPath: string,
  url: string,
  run: { env: Record<string, string>; timeoutMs: number | undefined; signal: undefined },
): Promise<string> {
  if (!(await exists(mirrorPath))) {
    const temporary = `${mirrorPath}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      await runGit(['init', '--bare', '--quiet', temporary], run);
      await runGit(['config', 'remote.origin.url', url], { ...run, cwd: temporary });
      await runGit(['config', 'remote.origin.fetch', MIRROR_REFSPEC], { ...run, cwd: temporary });
      await fetch(temporary, run);
      try {
        await rename(temporary, mirrorPath);
        return mirrorPath;
      } catch {
        // The mirror appeared meanwhile, made by something that does not take the lock: use it.
      }
    } finally {
      await rm(temporary, { recursive: true, force: true });
    }
  }
  // The project's repository setting may have changed since the mirror was made.
  if (!(await originIs(mirrorPath, url)))
    await runGit(['config', 'remote.origin.url', url], { ...run, cwd: mirrorPath });
  await fetch(mirrorPath, run);
  return mirrorPath;
}

/**
 * Whether the mirror's config already names `url` as origin's one URL, in the very line `git
 * config remote.origin.url` writes, so that writing it again would change nothing: read from the
 * file, without a git process. A URL git would quote or escape there, or a config that names
 * another URL anywhere, is written again.
 */
async function originIs(mirrorPath: string, url: string): Promise<boolean> {
  if (!/^[^\s"\\;#]+$/.test(url)) return false;
  const config = await readFile(join(mirrorPath, 'config'), 'utf8').catch(() => '');
  const urls = config.match(/^\s*url\s*=/gim) ?? [];
  return urls.length === 1 && config.includes(`\n[remote "origin"]\n\turl = ${url}\n`);
}

/** `promise`, or the signal's reason as soon as it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolveValue, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolveValue, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** `fetch --prune`, leaving alone the branches that worktrees have checked out (see the module doc). */
async function fetch(
  mirrorPath: string,
  run: { env: Record<string, string>; timeoutMs: number | undefined; signal: undefined },
): Promise<void> {
  await runGit(
    ['fetch', '--prune', '--quiet', 'origin', MIRROR_REFSPEC, ...(await busyBranches(mirrorPath))],
    {
      ...run,
      cwd: mirrorPath,
    },
  );
}

/**
 * Negative refspecs for the branches checked out in the mirror's worktrees. A worktree whose
 * folder is gone is forgotten first (`git worktree prune`), so that its branch is not kept out of
 * the fetch forever; `worktree list` marks such worktrees `prunable`, so the prune runs only when
 * one is there.
 */
async function busyBranches(mirrorPath: string): Promise<string[]> {
  const { stdout } = await runGit(['worktree', 'list', '--porcelain', '-z'], { cwd: mirrorPath });
  // Records of `<key> <value>` lines (NUL-ended with -z), a worktree's ended by an empty one.
  const worktrees = stdout
    .toString('utf8')
    .split('\0\0')
    .map((record) => record.split('\0'));
  if (worktrees.some((lines) => lines.some((line) => line.startsWith('prunable'))))
    await runGit(['worktree', 'prune'], { cwd: mirrorPath });
  return worktrees
    .filter((lines) => !lines.some((line) => line.startsWith('prunable')))
    .flatMap((lines) => lines.filter((line) => line.startsWith('branch refs/heads/')))
    .map((line) => `^${line.slice('branch '.length)}`);
}

/** Refuses branch names git would refuse, and names that would read as an option. */
export async function assertBranchName(branch: string): Promise<void> {
  const valid =
    !branch.startsWith('-') &&
    (await runGit(['check-ref-format', `refs/heads/${branch}`]).then(
      () => true,
      () => false,
    ));
  if (!valid) throw new MirrorError(`Invalid branch name: ${JSON.stringify(branch)}.`);
}

async function exists(path: string): Promise<boolean> {
  return stat(join(path, 'HEAD')).then(
    () => true,
    () => false,
  );
}
