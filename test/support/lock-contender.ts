/**
 * A process that takes a file lock, for the tests of src/git/file-lock.ts. Runs `node --import tsx`.
 * `contend <lock> <log> <rounds> <holdMs>`: three loops each take the lock `rounds` times, and
 * write `in <pid>` and `out <pid>` lines to `<log>` around a hold of `holdMs`. `hold <lock>`: takes
 * the lock, prints `held`, and keeps it until killed.
 */
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { acquireFileLock, withFileLock } from '../../src/git/file-lock.js';

const [mode, lock = '', log = '', rounds = '1', holdMs = '0'] = process.argv.slice(2);

if (mode === 'hold') {
  await acquireFileLock(lock);
  process.stdout.write('held\n');
  setInterval(() => {}, 60_000);
} else {
  const loop = async () => {
    for (let round = 0; round < Number(rounds); round += 1) {
      await withFileLock(lock, async () => {
        appendFileSync(log, `in ${process.pid}\n`);
        await sleep(Number(holdMs));
        appendFileSync(log, `out ${process.pid}\n`);
      });
    }
  };
  await Promise.all([loop(), loop(), loop()]);
}
