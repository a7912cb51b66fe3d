// A test process in miniature for processes.test.ts: starts a long sleep through spawnInGroup,
// prints its pid, and waits to be killed.
import { spawnInGroup } from './processes.js';

const child = spawnInGroup('sleep', ['300'], { stdio: 'ignore' });
console.log(JSON.stringify({ pid: child.pid }));
setInterval(() => {}, 60_000);
