// A test process in miniature for processes.test.ts: starts a long sleep through spawnInGroup,
// prints its pid, and waits to be killed.
import { readFileSync } from 'node:fs';
import { spawnInGroup } from './processes.js';

const child = spawnInGroup('sleep', ['300'], { stdio: 'ignore' });
// setpriv asks for the death signal and then execs sleep. A parent killed before that ask would
// leave sleep behind for a reason that is not ours, so the pid goes out once sleep runs.
const running = () => {
  try {
    return readFileSync(`/proc/${child.pid}/comm`, 'utf8').trim() === 'sleep';
  } catch {
    return false;
  }
};
const announce = setInterval(() => {
  if (!running()) return;
  clearInterval(announce);
  console.log(JSON.stringify({ pid: child.pid }));
}, 10);
setInterval(() => {}, 60_000);
