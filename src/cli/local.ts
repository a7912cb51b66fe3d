import { existsSync } from 'node:fs';
import { type Config, loadConfig } from '../config/config.js';
import { DATA_DIR_NAME, describeDataDir } from '../config/data-dir.js';
import type { Store } from '../store/store.js';
import { CliError } from './output.js';

/**
 * The configuration of an admin command, after saying on stderr which data directory it uses and
 * why. A command that would make a new SQLite database without being told to (no
 * AGENTJOBS_DATA_DIR, no DATABASE_URL, no `.agentjobs` here or above) is refused: it was almost
 * certainly run from the wrong folder, and the server would never see what it writes.
 */
export function adminConfig(
  config: Config = loadConfig(),
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): Config {
  if (env.DATABASE_URL) return config;
  const choice = { dir: config.dataDir, source: config.dataDirSource };
  const databaseFile = config.databaseUrl.replace(/^sqlite:/, '');
  if (config.dataDirSource === 'default' || (config.dataDirSource === 'found' && !existsSync(databaseFile))) {
    const missing =
      config.dataDirSource === 'default'
        ? `no ${DATA_DIR_NAME} folder in ${cwd} or above it`
        : `${config.dataDir} (the nearest ${DATA_DIR_NAME}) holds no database`;
    throw new CliError(
      `No agentjobs database found: ${missing}. Run this command in the folder where ` +
        '`agentjobs serve` runs (or below it), or set AGENTJOBS_DATA_DIR to the server’s data ' +
        'directory. To start a new database on purpose: AGENTJOBS_DATA_DIR=./.agentjobs',
      'data_dir_not_found',
    );
  }
  const fresh = existsSync(databaseFile) ? '' : ', a new database';
  process.stderr.write(`agentjobs: data directory ${describeDataDir(choice, cwd)}${fresh}\n`);
  return config;
}

/**
 * Runs `fn` against the service's own database (the admin commands work without a server), with
 * the command's config: the one it read already, or read here.
 */
export async function withStore<T>(
  fn: (store: Store, config: Config) => Promise<T>,
  loaded: Config = loadConfig(),
): Promise<T> {
  const config = adminConfig(loaded);
  // Loaded here, not at the top: most commands are clients of the API and never open a database.
  const { openStore } = await import('../store/open.js');
  const store = await openStore(config);
  try {
    return await fn(store, config);
  } finally {
    await store.close();
  }
}

export async function requireProject(store: Store, projectId: string) {
  const project = await store.projects.get(projectId);
  if (!project)
    throw new CliError(
      `No project ${projectId}. List them with: agentjobs project list`,
      'project_not_found',
    );
  return project;
}
