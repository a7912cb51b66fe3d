import { chmodSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

/** The folder name the service keeps its database, secret key and repositories in. */
export const DATA_DIR_NAME = '.agentjobs';

/**
 * Why a data directory was chosen: `env`, AGENTJOBS_DATA_DIR named it; `found`, the nearest
 * `.agentjobs` in the working directory or above it; `default`, none was found, so `./.agentjobs`
 * (a server makes it; an admin command refuses, see `cli/local.ts`).
 */
export type DataDirSource = 'env' | 'found' | 'default';

export interface DataDirChoice {
  dir: string;
  source: DataDirSource;
}

/**
 * The one rule the server and the admin commands share, so that a command run from a subfolder
 * of the checkout (or a shell elsewhere with AGENTJOBS_DATA_DIR) reaches the server's database:
 * AGENTJOBS_DATA_DIR, else the nearest `.agentjobs` walking up from `cwd`, else `cwd/.agentjobs`.
 */
export function chooseDataDir(fromEnv: string | undefined, cwd: string): DataDirChoice {
  if (fromEnv) return { dir: path.resolve(cwd, fromEnv), source: 'env' };
  for (let folder = path.resolve(cwd); ; folder = path.dirname(folder)) {
    const candidate = path.join(folder, DATA_DIR_NAME);
    if (isDirectory(candidate)) return { dir: candidate, source: 'found' };
    if (path.dirname(folder) === folder) break;
  }
  return { dir: path.join(path.resolve(cwd), DATA_DIR_NAME), source: 'default' };
}

/** One line for a person: which directory, and why that one. */
export function describeDataDir(choice: DataDirChoice, cwd: string): string {
  if (choice.source === 'env') return `${choice.dir} (AGENTJOBS_DATA_DIR)`;
  if (choice.source === 'found')
    return path.dirname(choice.dir) === path.resolve(cwd)
      ? `${choice.dir} (in the working directory)`
      : `${choice.dir} (the nearest ${DATA_DIR_NAME} above ${path.resolve(cwd)})`;
  return `${choice.dir} (none found in ${path.resolve(cwd)} or above; a new one)`;
}

/**
 * Whether `target` is the data directory or inside it, both taken with their symlinks resolved
 * (a path that does not exist, as written): the data directory holds the database, the secret key
 * and every project's mirror, so nothing a person names as a repository to read may lie in it.
 */
export function isInsideDataDir(target: string, dataDir: string): boolean {
  const real = (each: string) => {
    try {
      return realpathSync(each);
    } catch {
      return path.resolve(each);
    }
  };
  const rest = path.relative(real(dataDir), real(target));
  return rest === '' || (!rest.startsWith('..') && !path.isAbsolute(rest));
}

function isDirectory(candidate: string): boolean {
  try {
    return statSync(candidate).isDirectory();
  } catch {
    return false;
  }
}

/** The mode of the data directory and of the folders the service makes in it: its user's alone. */
export const PRIVATE_DIRECTORY_MODE = 0o700;
/** The mode of the files the service makes: the database, the secret key. */
export const PRIVATE_FILE_MODE = 0o600;
/** Permission bits for anyone but the owner. */
const OTHERS = 0o077;

/** One path `protectDataDir` found open to other users, and what it did about it. */
export interface LooseMode {
  path: string;
  /** The mode it had, in octal (`755`). */
  was: string;
  /** Tightened to the private mode; else why not (it is left as it was). */
  tightened: boolean;
  reason?: string;
}

/**
 * Makes the data directory if it is missing, private to the service's user (0700), and brings an
 * existing one that other local users could read or enter, and the private files in it, to 0700
 * and 0600. The directory holds the database, the secret key that opens the stored tokens, and
 * every repository: nobody else on the machine may read them. A directory with the sticky bit (a
 * shared one such as /tmp, named by mistake) is left alone, and so is whatever cannot be changed
 * (another user's); both are returned for the caller to warn about, so a start never fails here.
 */
export function protectDataDir(dir: string, files: string[]): LooseMode[] {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  const loose: LooseMode[] = [];
  const protect = (target: string, mode: number) => {
    let current: number;
    try {
      current = statSync(target).mode;
    } catch {
      return; // Not made yet: it will be made private.
    }
    if ((current & OTHERS) === 0) return;
    const was = (current & 0o7777).toString(8);
    if (current & 0o1000) {
      loose.push({ path: target, was, tightened: false, reason: 'a shared directory (sticky bit)' });
      return;
    }
    try {
      chmodSync(target, mode);
      loose.push({ path: target, was, tightened: true });
    } catch (error) {
      loose.push({ path: target, was, tightened: false, reason: (error as NodeJS.ErrnoException).code });
    }
  };
  protect(dir, PRIVATE_DIRECTORY_MODE);
  for (const file of files) protect(file, PRIVATE_FILE_MODE);
  return loose;
}
