import { spawn } from 'node:child_process';
import { it } from 'vitest';

it('starts a process and leaves it running', () => {
  spawn('sleep', ['301'], { stdio: 'ignore' }).unref();
});
