import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject, it } from 'vitest';

it('removes what it made and waits for what it started', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tidy-'));
  fs.rmSync(dir, { recursive: true });
  const child = spawn('sleep', ['303'], { stdio: 'ignore' });
  child.kill();
  await once(child, 'exit');
  const url = inject('postgresUrl');
  if (url) {
    const pool = new pg.Pool({ connectionString: url });
    await pool.query('select 1');
    await pool.end();
  }
});
