import { type ChildProcess, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnInGroup } from '../../test/support/processes.js';
import { acquireFileLock, withFileLock } from './file-lock.js';

const CONTENDER = resolve('test/support/lock-contender.ts');

let dir: string;
let lock: string;
const children: ChildProcess[] = [];

/** Starts test/support/lock-contender.ts in a process group of its own. */
function contender(...args: string[]): ChildProcess {
  const child = spawnInGroup(process.execPath, ['--import', 'tsx', CONTENDER, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return child;
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((done) => child.on('exit', (code) => done(code)));
}

function printed(child: ChildProcess, text: string): Promise<void> {
  return new Promise((done, fail) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(text)) done();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('exit', (code) => fail(new Error(`contender exited with ${code}: ${output}`)));
  });
}

/** The pid of a process that has exited (and so holds nothing). */
function deadPid(): number {
  const pid = spawnSync(process.execPath, [
    '-e',
    'process.stdout.write(String(process.pid))',
  ]).stdout.toString();
  return Number(pid);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentjobs-lock-'));
  lock = join(dir, 'mirror.git.lock');
});

afterEach(() => {
  for (const child of children.splice(0)) {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('withFileLock', () => {
  it('lets one holder at a time in, across two contending processes, starting from a stale lock', async () => {
    // A holder that died: both processes find it first, and only one of them may take it over.
    writeFileSync(lock, JSON.stringify({ host: hostname(), pid: deadPid(), start: null, token: 'dead' }));
    const log = join(dir, 'log');
    const rounds = 10;
    const first = contender('contend', lock, log, String(rounds), '2');
    const second = contender('contend', lock, log, String(rounds), '2');
    expect(await exited(first)).toBe(0);
    expect(await exited(second)).toBe(0);

    const lines = readFileSync(log, 'utf8').trim().split('\n');
    // Three loops per process, `rounds` holdings each, every one an `in` line followed by its `out`.
    expect(lines).toHaveLength(2 * 2 * 3 * rounds);
    for (let index = 0; index < lines.length; index += 2) {
      const holder = lines[index]?.replace(/^in /, '');
      expect(lines[index + 1], `line ${index + 1}`).toBe(`out ${holder}`);
    }
    expect(new Set(lines.map((line) => line.split(' ')[1]))).toEqual(
      new Set([String(first.pid), String(second.pid)]),
    );
    // Nothing is left behind: no lock, no temporary or breaker files.
    expect(readdirSync(dir)).toEqual(['log']);
  });

  it('waits while a live process holds the lock, and takes over once it was killed', async () => {
    const holder = contender('hold', lock);
    await printed(holder, 'held');
    await expect(acquireFileLock(lock, { signal: AbortSignal.timeout(500) })).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    expect(existsSync(lock)).toBe(true);

    process.kill(-(holder.pid as number), 'SIGKILL');
    await exited(holder);
    const entered = await withFileLock(lock, async () => true, { signal: AbortSignal.timeout(10_000) });
    expect(entered).toBe(true);
    expect(existsSync(lock)).toBe(false);
  });

  // Start times come from /proc; elsewhere a live pid always counts as its holder.
  it.skipIf(!existsSync('/proc/self/stat'))(
    'takes over a lock whose pid now belongs to a later process',
    async () => {
      // This test's parent is alive, but did not start at the time the lock names.
      writeFileSync(
        lock,
        JSON.stringify({ host: hostname(), pid: process.ppid, start: '1', token: 'reused' }),
      );
      await withFileLock(lock, async () => {}, { signal: AbortSignal.timeout(10_000) });
      expect(existsSync(lock)).toBe(false);
    },
  );

  it('never takes over the lock of a holder on another host', async () => {
    // Another machine's holder cannot be judged from here, even with a pid that is dead on this one.
    writeFileSync(
      lock,
      JSON.stringify({ host: `not-${hostname()}`, pid: deadPid(), start: null, token: 'far' }),
    );
    await expect(acquireFileLock(lock, { signal: AbortSignal.timeout(300) })).rejects.toMatchObject({
      name: 'TimeoutError',
    });
  });

  it('runs callers of one process one at a time, and releases the lock when the task throws', async () => {
    let inside = 0;
    let most = 0;
    const task = async () => {
      inside += 1;
      most = Math.max(most, inside);
      await new Promise((done) => setTimeout(done, 5));
      inside -= 1;
    };
    await Promise.all(Array.from({ length: 5 }, () => withFileLock(lock, task)));
    expect(most).toBe(1);
    await expect(
      withFileLock(lock, async () => {
        throw new Error('task failed');
      }),
    ).rejects.toThrow('task failed');
    expect(existsSync(lock)).toBe(false);
  });
});
