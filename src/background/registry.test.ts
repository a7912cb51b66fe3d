import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { goneWorkers, registerWorker } from './registry.js';

describe('the worker registry of a data directory', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'agentjobs-registry-'));
  // A process that lives through the test, and the pid of one that ended.
  const living = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  const ended = spawnSync(process.execPath, [
    '-e',
    'process.stdout.write(String(process.pid))',
  ]).stdout.toString();
  afterAll(() => {
    living.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });
  const file = (name: string, registration: object) =>
    writeFileSync(join(dataDir, 'workers', `${name}.json`), JSON.stringify(registration));

  it('names the dead workers of this machine only, never a live one or one of another machine', async () => {
    expect(await goneWorkers(dataDir)).toEqual([]);
    const entry = await registerWorker(dataDir, 'me');
    const host = hostname();
    file('dead', { host, pid: Number(ended), start: null, token: 'dead', worker: 'dead-worker' });
    file('alive', { host, pid: living.pid, start: null, token: 'alive', worker: 'live-worker' });
    // The pid of a live process, but another start time: the pid was reused, the worker is gone.
    file('reused', { host, pid: living.pid, start: '1', token: 'reused', worker: 'reused-worker' });
    file('stopped', {
      host,
      pid: Number(ended),
      start: null,
      token: 's',
      worker: 'stopped',
      stoppedAtOnce: true,
    });
    file('elsewhere', { host: `not-${host}`, pid: Number(ended), start: null, token: 'x', worker: 'remote' });
    writeFileSync(join(dataDir, 'workers', 'garbled.json'), '{');

    const gone = await goneWorkers(dataDir);
    expect(gone.map((worker) => worker.worker).sort()).toEqual(['dead-worker', 'reused-worker', 'stopped']);
    expect(gone.filter((worker) => worker.stoppedAtOnce).map((worker) => worker.worker)).toEqual(['stopped']);
    for (const worker of gone) await worker.forget();
    const left = readdirSync(join(dataDir, 'workers')).sort();
    expect(left.filter((name) => /^[0-9a-f]{16}\.json$/.test(name))).toHaveLength(1);
    expect(left.filter((name) => !/^[0-9a-f]{16}\.json$/.test(name))).toEqual([
      'alive.json',
      'elsewhere.json',
      'garbled.json',
    ]);
    // A second Ctrl-C notes it in the worker's own file, synchronously, before the process exits.
    entry.markStoppedAtOnce();
    const own = left.find((name) => /^[0-9a-f]{16}\.json$/.test(name)) ?? '';
    const written = JSON.parse(readFileSync(join(dataDir, 'workers', own), 'utf8'));
    expect(written).toMatchObject({ worker: 'me', pid: process.pid, stoppedAtOnce: true });
    await entry.unregister();
    expect(readdirSync(join(dataDir, 'workers')).sort()).toEqual([
      'alive.json',
      'elsewhere.json',
      'garbled.json',
    ]);
  });
});
