import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { committedRepo } from '../support/e2e.js';
import { runCli, startServerProcess } from '../support/processes.js';

// Blank values count as unset (config.ts): the test's own environment must not choose for the CLI.
const unset = { AGENTJOBS_DATA_DIR: '', DATABASE_URL: '', LOG_LEVEL: 'info', AGENTJOBS_LOG_FORMAT: 'json' };
let dir: string;
let deeper: string;
let repo: string;

/** The nearest `.agentjobs` at or above `folder`, if any (this machine's, not the test's). */
function dataDirAbove(folder: string): string | null {
  for (let at = folder; ; at = path.dirname(at)) {
    if (fs.existsSync(path.join(at, '.agentjobs'))) return path.join(at, '.agentjobs');
    if (path.dirname(at) === at) return null;
  }
}

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-data-dir-')));
  const stray = dataDirAbove(path.dirname(dir));
  if (stray) throw new Error(`${stray} exists above the test's folder; this test needs none there`);
  deeper = path.join(dir, 'site', 'pages');
  fs.mkdirSync(deeper, { recursive: true });
  repo = path.join(dir, 'docs');
  committedRepo(repo);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the admin commands’ data directory', () => {
  it('refuses to make a database where none was asked for, and makes nothing', async () => {
    const result = await runCli(['project', 'create', '--name', 'Docs', '--repo', repo], unset, undefined, {
      cwd: deeper,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `No agentjobs database found: no .agentjobs folder in ${deeper} or above it`,
    );
    expect(result.stderr).toContain('AGENTJOBS_DATA_DIR=./.agentjobs');
    expect(dataDirAbove(deeper)).toBeNull();
  });

  it('makes one when AGENTJOBS_DATA_DIR asks, and finds it from a folder below', async () => {
    const created = await runCli(
      ['project', 'create', '--name', 'Docs', '--repo', repo, '--json'],
      { ...unset, AGENTJOBS_DATA_DIR: './.agentjobs' },
      undefined,
      { cwd: dir },
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toContain(`data directory ${dir}/.agentjobs (AGENTJOBS_DATA_DIR), a new database`);
    const project = JSON.parse(created.stdout) as { id: string };

    const listed = await runCli(['project', 'list', '--json'], unset, undefined, { cwd: deeper });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toContain(
      `data directory ${dir}/.agentjobs (the nearest .agentjobs above ${deeper})`,
    );
    expect(JSON.parse(listed.stdout).projects).toEqual([expect.objectContaining({ id: project.id })]);
  });

  it('refuses a .agentjobs folder that holds no database', async () => {
    const empty = path.join(dir, 'empty');
    fs.mkdirSync(path.join(empty, '.agentjobs'), { recursive: true });
    const result = await runCli(['key', 'list', '--project', 'x'], unset, undefined, { cwd: empty });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${empty}/.agentjobs (the nearest .agentjobs) holds no database`);
    expect(fs.readdirSync(path.join(empty, '.agentjobs'))).toEqual([]);
  });

  it('the server started from a folder below uses the same directory', async () => {
    const server = await startServerProcess(unset, 'serve', { cwd: deeper });
    try {
      const ready = server.output.find((line) => line.includes('agentjobs is listening')) ?? '';
      expect(JSON.parse(ready)).toMatchObject({
        dataDir: path.join(dir, '.agentjobs'),
        dataDirSource: 'found',
      });
    } finally {
      await server.stop();
    }
  });
});
