import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess } from '../support/processes.js';

// Blank values count as unset (config.ts): the test's own environment must not choose for the server.
const unset = { DATABASE_URL: '', AGENTJOBS_SECRET_KEY: '', LOG_LEVEL: 'info', AGENTJOBS_LOG_FORMAT: 'json' };
let dir: string;

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-modes-')));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const modeOf = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);

/** The data directory's own files, with their modes: the directory, the database, the secret key. */
function ownFiles(dataDir: string): Record<string, string> {
  const names = ['.', 'agentjobs.db', 'agentjobs.db-wal', 'agentjobs.db-shm', 'secret.key'];
  return Object.fromEntries(names.map((name) => [name, modeOf(path.join(dataDir, name))]));
}

/** Every path under `folder` that anyone but its owner may read, write or enter. */
function openToOthers(folder: string): string[] {
  return fs
    .readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => fs.lstatSync(path.join(folder, name)).mode & 0o077);
}

const PRIVATE = {
  '.': '700',
  'agentjobs.db': '600',
  'agentjobs.db-wal': '600',
  'agentjobs.db-shm': '600',
  'secret.key': '600',
};

describe('the data directory’s modes', () => {
  it('starts a new data directory private to the service’s user: 0700, and 0600 for the database, its WAL files and the secret key', async () => {
    const dataDir = path.join(dir, 'new');
    const server = await startServerProcess({ ...unset, AGENTJOBS_DATA_DIR: dataDir });
    try {
      expect(ownFiles(dataDir)).toEqual(PRIVATE);
      expect(openToOthers(dataDir)).toEqual([]);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 120_000);

  it('tightens a data directory that other users could read, at the start of serve and of worker, and says so', async () => {
    const dataDir = path.join(dir, 'loose');
    for (const role of ['serve', 'worker'] as const) {
      // What an older version left: a directory anyone may enter, files anyone may read.
      fs.mkdirSync(dataDir, { recursive: true });
      fs.chmodSync(dataDir, 0o755);
      for (const name of ['agentjobs.db', 'secret.key'])
        if (fs.existsSync(path.join(dataDir, name))) fs.chmodSync(path.join(dataDir, name), 0o644);
      const server = await startServerProcess({ ...unset, AGENTJOBS_DATA_DIR: dataDir }, role);
      try {
        expect(ownFiles(dataDir), role).toEqual(PRIVATE);
        const warnings = server.output.filter((line) => line.includes('made it private to this user'));
        expect(warnings.join('\n'), role).toContain(`"path":"${dataDir}","was":"755"`);
        if (role === 'worker') {
          expect(warnings.join('\n')).toContain(`"path":"${path.join(dataDir, 'agentjobs.db')}","was":"644"`);
          expect(warnings.join('\n')).toContain(`"path":"${path.join(dataDir, 'secret.key')}","was":"644"`);
        }
      } finally {
        expect(await server.stop()).toBe(0);
      }
    }
  }, 120_000);
});
