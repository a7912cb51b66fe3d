/**
 * A lock that holds across the processes of one machine: the lock file exists while someone holds
 * it, and names its holder (pid, the process's start time, a token of this holding). It is made
 * whole under a temporary name and then hard-linked into place, so it appears atomically and never
 * half-written, and `link` fails when it already exists (the same guarantee as `O_EXCL`).
 *
 * A holder that died (a crash, `kill -9`) leaves its file behind. Waiters take such a lock over once
 * they see its pid gone, or alive with another start time (the pid was reused). Taking over is itself
 * locked: only the process that creates `<lock>.<token>.break` for that holding may remove the lock
 * file, and only after reading that it still names the dead holding, so two waiters can never each
 * remove a lock the other just took.
 *
 * The holder's liveness is judged from this machine's process table, so the processes that share a
 * lock must run on one machine (one pid namespace). A holding from another host name (a container
 * with a volume of its own host's) always counts as alive: waiting is safe, robbing it would not be.
 * Nothing expires by age, so a slow holder (a long fetch) is never robbed.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';

/** Who holds a lock, as written in its file: one process of one machine, and a token of the holding. */
export interface Holder {
  /** The machine's name: a holder of another machine cannot be judged from here, and counts as alive. */
  host: string;
  pid: number;
  /** The process's start time where the platform tells it (Linux: `/proc`), else null. */
  start: string | null;
  token: string;
}

const FIRST_WAIT_MS = 5;
const LONGEST_WAIT_MS = 50;

/** Tokens of the holdings of this process: a file naming this process but none of these is a leftover. */
const held = new Set<string>();

/**
 * Waits until the lock file `path` can be created, runs `task`, then removes the file. The folder
 * must exist. `signal` gives up the wait (with its reason), not a running task.
 */
export async function withFileLock<T>(
  path: string,
  task: () => Promise<T>,
  options: { signal?: AbortSignal } = {},
): Promise<T> {
  const release = await acquireFileLock(path, options);
  try {
    return await task();
  } finally {
    await release();
  }
}

/** Waits for the lock file `path` (see `withFileLock`) and returns the function that releases it. */
export async function acquireFileLock(
  path: string,
  options: { signal?: AbortSignal } = {},
): Promise<() => Promise<void>> {
  const me = newHolder();
  for (let attempt = 0; ; attempt += 1) {
    options.signal?.throwIfAborted();
    held.add(me.token);
    if (await tryCreate(path, me)) return () => release(path, me.token);
    held.delete(me.token);
    const holder = await readHolder(path);
    // Gone meanwhile: try again at once. Dead: take it over, then try again (unless another
    // process is taking it over right now: then wait like for a live holder).
    if (holder === 'absent') continue;
    if (holder && !isAlive(holder) && (await breakStale(path, holder))) continue;
    const wait = Math.min(LONGEST_WAIT_MS, FIRST_WAIT_MS * 2 ** attempt);
    // An abort ends the wait with the signal's reason (a timeout's TimeoutError), not a bare AbortError.
    await delay(wait / 2 + Math.random() * (wait / 2), undefined, { signal: options.signal }).catch(
      (error) => {
        options.signal?.throwIfAborted();
        throw error;
      },
    );
  }
}

async function release(path: string, token: string): Promise<void> {
  held.delete(token);
  const holder = await readHolder(path);
  // Only our own file: if ours was ever taken over, the file there now is someone else's holding.
  if (holder !== 'absent' && holder?.token === token) await unlink(path).catch(ignoreMissing);
}

/** Creates `path` naming `holder`; false when it already exists. */
async function tryCreate(path: string, holder: Holder): Promise<boolean> {
  const temporary = `${path}.${holder.token}.tmp`;
  await writeFile(temporary, JSON.stringify(holder), { flag: 'wx' });
  try {
    await link(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temporary).catch(ignoreMissing);
  }
}

/**
 * Removes the lock file of a dead holding, under the breaker lock of that holding. A breaker that
 * died in turn is broken the same way (its own breaker file names its holding). False when a live
 * breaker is at work, so nothing changed.
 */
async function breakStale(path: string, stale: Holder): Promise<boolean> {
  const breaker = `${path}.${stale.token}.break`;
  const me = newHolder();
  held.add(me.token);
  try {
    if (!(await tryCreate(breaker, me))) {
      const other = await readHolder(breaker);
      if (other === 'absent') return true;
      return other !== null && !isAlive(other) && (await breakStale(breaker, other));
    }
    try {
      const current = await readHolder(path);
      if (current !== 'absent' && current?.token === stale.token) await unlink(path).catch(ignoreMissing);
    } finally {
      await unlink(breaker).catch(ignoreMissing);
    }
    return true;
  } finally {
    held.delete(me.token);
  }
}

/** The holder named in `path`; 'absent' when there is no file; null when it cannot be read as one. */
async function readHolder(path: string): Promise<Holder | 'absent' | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    throw error;
  }
  try {
    const value = JSON.parse(text) as Partial<Holder>;
    if (typeof value.host === 'string' && typeof value.pid === 'number' && typeof value.token === 'string') {
      const start = typeof value.start === 'string' ? value.start : null;
      return { host: value.host, pid: value.pid, start, token: value.token };
    }
  } catch {
    // Not ours to judge: treated as a live holding, since only `link` makes the file and it is never partial.
  }
  return null;
}

/**
 * False when the holding's process is gone, or the pid now belongs to a later process. A holding of
 * this process is alive while `current` has its token. A holding of another machine counts as alive.
 */
export function isAlive(holder: Holder, current: ReadonlySet<string> = held): boolean {
  if (holder.host !== ownHost) return true;
  if (holder.pid === process.pid && holder.start === ownStart) return current.has(holder.token);
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  if (holder.start === null) return true;
  const start = startOf(holder.pid);
  return start === null || start === holder.start;
}

/**
 * A process's start time in clock ticks since boot (field 22 of `/proc/<pid>/stat`), which with the
 * pid names one process for as long as the machine runs; null where there is no `/proc`.
 */
function startOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

const ownStart = startOf(process.pid);
const ownHost = hostname();

/** A new holding of this process. */
export function newHolder(): Holder {
  return { host: ownHost, pid: process.pid, start: ownStart, token: randomBytes(8).toString('hex') };
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
}
