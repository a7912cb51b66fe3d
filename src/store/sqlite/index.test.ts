import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openSqlite } from './index.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-sqlite-mode-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

it('makes the database, its WAL files and its folder private to this user, whatever the umask', async () => {
  const file = path.join(dir, 'data', 'agentjobs.db');
  const db = openSqlite(file);
  try {
    await db.write((trx) => sql`create table written (x integer)`.execute(trx));
    const modes = [path.dirname(file), file, `${file}-wal`, `${file}-shm`].map((one) =>
      (fs.statSync(one).mode & 0o777).toString(8),
    );
    expect(modes).toEqual(['700', '600', '600', '600']);
  } finally {
    await db.close();
  }
});
