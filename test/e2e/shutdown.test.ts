import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, READY, type Role, spawnInGroup, startServerProcess } from '../support/processes.js';
import { heldUntil } from '../support/scripted-model.js';
import { scriptedServer } from '../support/scripted-server.js';

const GRACE_SECONDS = 1;
// The service promises an exit within grace plus five seconds; the rest is room for a machine
// running two suites at once. Without the bounded flush the process never exits at all.
const EXIT_DEADLINE_MS = 15_000;

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) fs.rmSync(directory, { recursive: true, force: true });
});

/**
 * A named pipe standing in for a log collector that stopped reading. The test holds both ends,
 * non-blocking, so it can read the start-up lines and then fill the pipe itself.
 */
function stalledPipe(directory: string) {
  const file = path.join(directory, 'stdout');
  const made = spawnSync('mkfifo', [file]);
  if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr}`);
  const reader = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const writer = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
  return {
    writer,
    /** Reads what is in the pipe now ('' when it is empty). */
    read(): string {
      const buffer = Buffer.alloc(64 * 1024);
      try {
        return buffer.toString('utf8', 0, fs.readSync(reader, buffer));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return '';
        throw error;
      }
    },
    /**
     * Writes until the pipe takes nothing more, through a descriptor of its own: spawning made
     * the one the child inherited blocking again, as a service's stdout usually is.
     */
    fill(): void {
      const filler = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
      const chunk = Buffer.alloc(4096, '#');
      try {
        for (;;) fs.writeSync(filler, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      } finally {
        fs.closeSync(filler);
      }
    },
    close(): void {
      fs.closeSync(writer);
      fs.closeSync(reader);
    },
  };
}

describe.each<Role>(['serve', 'worker'])('agentjobs %s with a stalled log destination', (role) => {
  it('exits on SIGTERM within its grace period plus the margin', { timeout: 60_000 }, async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-shutdown-'));
    directories.push(directory);
    const pipe = stalledPipe(directory);
    const child = spawnInGroup(process.execPath, [CLI, role], {
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'debug',
        AGENTJOBS_DATA_DIR: path.join(directory, 'data'),
        AGENTJOBS_ADMIN_PASSWORD: 'a-long-enough-admin-password',
        AGENTJOBS_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
      },
      stdio: ['ignore', pipe.writer, 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number | string | null>((resolve) =>
      child.on('exit', (code, signal) => resolve(code ?? signal)),
    );
    try {
      let output = '';
      while (!output.includes(READY[role])) {
        if (child.exitCode !== null) throw new Error(`${role} exited at start: ${output}${stderr}`);
        output += pipe.read();
        await sleep(50);
      }
      pipe.fill();

      child.kill('SIGTERM');
      const outcome = await Promise.race([exited, sleep(EXIT_DEADLINE_MS, 'still running')]);
      expect(outcome, stderr).toBe(0);
    } finally {
      pipe.close();
    }
  });
});

// Ctrl-C at a terminal: the first says how long stopping may take and how to stop at once; the
// second stops at once, without waiting out the grace period for the job that is still running.
describe('agentjobs serve on Ctrl-C', () => {
  it('says how long it waits on the first SIGINT and stops at once on the second', {
    timeout: 90_000,
  }, async () => {
    const scripted = await scriptedServer({
      name: 'ctrl-c',
      env: { AGENTJOBS_SHUTDOWN_GRACE_SECONDS: '600' },
    });
    const { server, model, api } = scripted;
    try {
      // A job whose model never answers: stopping gracefully would wait out the whole grace period.
      model.setScript([heldUntil(new Promise<void>(() => {}), { text: 'never' })]);
      const created = await api.call('POST', '/job', { prompt: 'Add a page' });
      expect(created.status).toBe(201);
      while (model.requests.length === 0) await sleep(50);

      const printed = () => server.output.join('\n');
      const until = async (text: string) => {
        const deadline = Date.now() + 20_000;
        while (!printed().includes(text) && Date.now() < deadline) await sleep(50);
        return printed();
      };
      server.child.kill('SIGINT');
      const first = await until('Press Ctrl-C again');
      expect(first).toContain(
        'Stopping: running jobs get up to 600 s to finish (AGENTJOBS_SHUTDOWN_GRACE_SECONDS); any still running then go back to the queue. Press Ctrl-C again to stop at once: jobs still running resume after the next start.',
      );
      // Still waiting for the job (the grace period is ten minutes).
      await sleep(500);
      expect(server.child.exitCode).toBeNull();

      server.child.kill('SIGINT');
      // Far less than the grace period: the old way to stop at once was to wait it out or kill -9.
      const code = await Promise.race([server.exited, sleep(30_000, 'still running')]);
      expect(code).toBe(1);
      expect(printed()).toContain('Stopping now. Jobs that were running resume after the next start.');
    } finally {
      await scripted.close();
    }
  });
});

// Ctrl-C on an idle server: nothing to wait for, so nothing about jobs or a second Ctrl-C, and no
// drain either (a long one here: waiting it out would overrun the race below).
describe('agentjobs serve on Ctrl-C with no job running', () => {
  it('says it is stopping and stops, exit 0', { timeout: 90_000 }, async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-idle-ctrl-c-'));
    directories.push(directory);
    const server = await startServerProcess({
      AGENTJOBS_DATA_DIR: path.join(directory, 'data'),
      HOME: directory,
      AGENTJOBS_DRAIN_SECONDS: '120',
    });
    server.child.kill('SIGINT');
    const code = await Promise.race([server.exited, sleep(30_000, 'still running')]);
    expect(code).toBe(0);
    const printed = server.output.join('\n');
    expect(printed).toContain('Stopping: no job is running.');
    expect(printed).not.toMatch(/Ctrl-C again|AGENTJOBS_DRAIN_SECONDS/);
  });
});
