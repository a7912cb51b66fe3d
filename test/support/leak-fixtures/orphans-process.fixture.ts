import { execFileSync } from 'node:child_process';
import { it } from 'vitest';

it('starts a process that outlives its parent', () => {
  // The shell exits at once: the sleep is reparented, out of reach of its test file's check.
  execFileSync('sh', ['-c', 'sleep 302 >/dev/null 2>&1 &']);
});
