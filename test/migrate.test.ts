import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDb } from '../src/store/db.js';
import { createTestDatabase, testDialects } from './support/db.js';
import { spawnInGroup } from './support/processes.js';

const CLI = path.resolve('dist/cli/main.js');

function migrateInProcess(
  databaseUrl: string,
  dataDir: string,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawnInGroup(process.execPath, [CLI, 'migrate', '--json'], {
      env: { ...process.env, DATABASE_URL: databaseUrl, AGENTJOBS_DATA_DIR: dataDir },
    });
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe.each(testDialects())('migrations on %s', (dialect) => {
  it('succeed when three processes migrate one empty database at once', async () => {
    const database = await createTestDatabase(dialect);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-migrate-'));
    try {
      const results = await Promise.all([1, 2, 3].map(() => migrateInProcess(database.url, dataDir)));
      for (const result of results) expect(result, result.output).toMatchObject({ code: 0 });
      // Exactly one process applied each migration; the others found it done.
      const applied = results.map((result) => JSON.parse(result.output).applied as string[]);
      expect(applied.flat().sort()).toEqual([
        '0001_initial',
        '0002_worker',
        '0003_dashboard',
        '0004_published',
        '0008_usage_cost',
      ]);

      const db = openDb({ url: database.url });
      const tables = await db.kysely.introspection.getTables();
      await db.close();
      expect(tables.map((table) => table.name)).toEqual(
        expect.arrayContaining([
          'projects',
          'api_keys',
          'jobs',
          'job_messages',
          'job_events',
          'idempotency_keys',
          'rate_limits',
        ]),
      );
      // And a later run has nothing to do.
      const again = await migrateInProcess(database.url, dataDir);
      expect(JSON.parse(again.output)).toEqual({ applied: [] });
    } finally {
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
