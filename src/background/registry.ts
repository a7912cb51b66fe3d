/**
 * The workers of one data directory, each named by a file in `<data dir>/workers/` while it runs:
 * its id (the `lease_owner` of its jobs) and its process (machine, pid, start time, as the lock
 * files of `git/file-lock.ts` name theirs). A worker that starts reads the others' files: one whose
 * process is gone (killed, crashed, stopped at once by a second Ctrl-C) held its jobs until it died,
 * and nothing renews their leases any more, so they go back to the queue at once instead of when
 * the leases expire.
 *
 * Why this is safe: only a process of this machine is judged (a file naming another machine counts
 * as alive, as a lock file does), by its pid and its start time, so a reused pid is not taken for
 * the dead worker; and only workers that wrote a file here are judged, so a worker of another data
 * directory or another machine (PostgreSQL scale-out) is never judged from here: its jobs wait for
 * their leases to expire, as before. A worker whose file is gone (it stopped cleanly) held nothing.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PRIVATE_DIRECTORY_MODE } from '../config/data-dir.js';
import { type Holder, isAlive, newHolder } from '../git/file-lock.js';

/** A worker's file: its process, and its id. */
interface Registration extends Holder {
  worker: string;
  /** Set when a person stopped the process at once (a second Ctrl-C): its jobs lost no attempt. */
  stoppedAtOnce?: boolean;
}

/** A worker's entry in its data directory, while it runs. */
export interface WorkerEntry {
  /** Removes the entry, once the worker holds nothing any more. */
  unregister(): Promise<void>;
  /**
   * Notes, synchronously (the process exits right after), that the worker is being stopped at once
   * by a person, so that the jobs it holds are taken back without counting a lost attempt.
   */
  markStoppedAtOnce(): void;
}

/** Tokens of the registrations of this process that are still running. */
const running = new Set<string>();

const folderOf = (dataDir: string) => join(dataDir, 'workers');

/** Writes the file that names worker `workerId` in `dataDir`, before it claims anything. */
export async function registerWorker(dataDir: string, workerId: string): Promise<WorkerEntry> {
  const folder = folderOf(dataDir);
  await mkdir(folder, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  const registration: Registration = { ...newHolder(), worker: workerId };
  const file = join(folder, `${registration.token}.json`);
  // Written whole, then renamed into place: a reader never sees half a file.
  await writeFile(`${file}.tmp`, JSON.stringify(registration), { mode: 0o600 });
  await rename(`${file}.tmp`, file);
  running.add(registration.token);
  return {
    async unregister() {
      running.delete(registration.token);
      await unlink(file).catch(ignoreMissing);
    },
    markStoppedAtOnce() {
      try {
        writeFileSync(`${file}.tmp`, JSON.stringify({ ...registration, stoppedAtOnce: true }), {
          mode: 0o600,
        });
        renameSync(`${file}.tmp`, file);
      } catch {
        // Not noted: its jobs count a lost attempt, as after a crash.
      }
    },
  };
}

/** A worker of the data directory whose process is gone. */
export interface GoneWorker {
  /** Its id, the `lease_owner` of the jobs it held. */
  worker: string;
  /** A person stopped it at once (`markStoppedAtOnce`): not the fault of the jobs it held. */
  stoppedAtOnce: boolean;
  /** Removes its file, once its jobs were reclaimed. */
  forget(): Promise<void>;
}

/** The workers registered in `dataDir` whose process is gone. */
export async function goneWorkers(dataDir: string): Promise<GoneWorker[]> {
  const folder = folderOf(dataDir);
  const names = await readdir(folder).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const gone: GoneWorker[] = [];
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const file = join(folder, name);
    const registration = await readRegistration(file);
    if (!registration || isAlive(registration, running)) continue;
    gone.push({
      worker: registration.worker,
      stoppedAtOnce: registration.stoppedAtOnce === true,
      forget: () => unlink(file).catch(ignoreMissing),
    });
  }
  return gone;
}

/** The registration in `file`; null when it is gone or not one (left alone: not ours to judge). */
async function readRegistration(file: string): Promise<Registration | null> {
  try {
    const value = JSON.parse(await readFile(file, 'utf8')) as Partial<Registration>;
    const { host, pid, start, token, worker } = value;
    if (typeof host !== 'string' || typeof pid !== 'number' || typeof token !== 'string') return null;
    if (typeof worker !== 'string') return null;
    const stoppedAtOnce = value.stoppedAtOnce === true;
    return { host, pid, start: typeof start === 'string' ? start : null, token, worker, stoppedAtOnce };
  } catch {
    return null;
  }
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
}
