import { statSync } from 'node:fs';
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

function isDirectory(candidate: string): boolean {
  try {
    return statSync(candidate).isDirectory();
  } catch {
    return false;
  }
}
