import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { spawnInGroup } from './processes.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(!fs.existsSync('/usr/bin/setpriv'))('spawnInGroup', () => {
  it('leaves no process behind when the test process that started it is killed outright', async () => {
    // The miniature test process runs with tsx; SIGKILL gives it no chance to clean up.
    const parent = spawnInGroup(process.execPath, ['--import', 'tsx', 'test/support/spawn-and-wait.ts'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const pid = await new Promise<number>((resolve, reject) => {
      parent.stdout?.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString()).pid));
      parent.once('exit', (code) => reject(new Error(`exited with ${code}`)));
    });
    expect(alive(pid)).toBe(true);
    process.kill(parent.pid as number, 'SIGKILL');
    await expect.poll(() => alive(pid), { timeout: 20_000, interval: 100 }).toBe(false);
  });
});
