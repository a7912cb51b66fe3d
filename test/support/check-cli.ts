/** What the tests of project settings on the command line share. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase, type TestDialect } from './db.js';
import { CLI, type CliResult, runToEnd } from './processes.js';
import { useFixture } from './use-fixture.js';

export interface CliData {
  /** The temporary folder; the data folder is its `data`. */
  dir: string;
  database: TestDatabase;
  /** The environment the built CLI reads them from. */
  env: Record<string, string>;
}

/** A temporary folder (`agentjobs-<name>-…`) and a fresh database of `dialect` for the built CLI. */
export async function cliData(name: string, dialect: TestDialect): Promise<CliData> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `agentjobs-${name}-`));
  const database = await createTestDatabase(dialect);
  return { dir, database, env: { AGENTJOBS_DATA_DIR: path.join(dir, 'data'), DATABASE_URL: database.url } };
}

/** `cliData` for the enclosing `describe`: made in its `beforeAll`, dropped and removed in its `afterAll`. */
export function useCliData(name: string, dialect: TestDialect): CliData {
  return useFixture(
    ({ name, dialect }: { name: string; dialect: TestDialect }) => cliData(name, dialect),
    { name, dialect },
    async ({ dir, database }) => {
      await database.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  );
}

/** The arguments of `project create` of `repo` as "Docs", with `options`. */
export const createDocsArgs = (repo: string, ...options: string[]): string[] => [
  'project',
  'create',
  '--name',
  'Docs',
  '--repo',
  repo,
  ...options,
];

/**
 * Runs the built CLI where control groups cannot be made: in its own mount namespace, with an
 * empty tmpfs over /sys/fs/cgroup (as root; the rest of the machine sees nothing of it).
 */
export function cliWithoutGroups(args: string[], env: Record<string, string>): Promise<CliResult> {
  const inNamespace = ['sh', '-c', 'mount -t tmpfs none /sys/fs/cgroup && exec "$@"', 'sh'];
  return runToEnd(
    'unshare',
    ['--mount', '--propagation', 'private', ...inNamespace, process.execPath, CLI, ...args],
    { env },
  );
}
