import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { hashKey } from '../src/domain/keys.js';
import { openDb } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import * as m0001 from '../src/store/migrations/0001_initial.js';
import * as m0002 from '../src/store/migrations/0002_worker.js';
import * as m0003 from '../src/store/migrations/0003_dashboard.js';
import * as m0004 from '../src/store/migrations/0004_published.js';
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
        '0005_webhooks',
        '0006_instance_keys',
        '0008_usage_cost',
        '0009_checks',
        '0010_idempotency_owner',
        '0011_close_pr_on_archive',
        '0012_pull_request_base',
        '0013_spend_reservations',
        '0014_host_events',
        '0015_context_repositories',
        '0016_run_progress',
        '0017_project_environment',
        '0018_automations',
        '0019_project_mention',
        '0020_setup_review',
        '0021_one_event_one_run',
        '0022_pull_request_quotes',
        '0023_progress_messages',
        '0024_slack',
        '0025_pull_request_commands',
        '0026_host_pull_requests',
        '0027_automation_slack',
        '0028_linear',
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

  it('let this version run on a database the next version migrated (a rolling upgrade)', async () => {
    const database = await createTestDatabase(dialect);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-migrate-'));
    try {
      expect((await migrateInProcess(database.url, dataDir)).code).toBe(0);
      // What version N+1 leaves: a migration this version has never heard of.
      const db = openDb({ url: database.url });
      await db.kysely
        .insertInto('kysely_migration' as never)
        .values({ name: '9999_from_the_next_version', timestamp: new Date().toISOString() } as never)
        .execute();
      await db.close();
      const again = await migrateInProcess(database.url, dataDir);
      expect(again, again.output).toMatchObject({ code: 0 });
      expect(JSON.parse(again.output)).toEqual({ applied: [] });
    } finally {
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('0006_instance_keys keeps every key, with its constraints, and lets a key have no project', async () => {
    const database = await createTestDatabase(dialect);
    const db = openDb({ url: database.url });
    try {
      // The schema before instance keys, with a project and two of its keys in it.
      const before = {
        '0001_initial': m0001,
        '0002_worker': m0002,
        '0003_dashboard': m0003,
        '0004_published': m0004,
      };
      const { error } = await new Migrator({
        db: db.kysely,
        provider: { getMigrations: async () => before },
      }).migrateToLatest();
      expect(error).toBeUndefined();
      const now = new Date().toISOString();
      const project = {
        id: '01J00000000000000000000001',
        name: 'Docs',
        repository: '/srv/docs.git',
        host: 'local',
      };
      await db.kysely
        .insertInto('projects')
        .values({
          ...project,
          base_branch: 'main',
          publish: 'pull_request',
          created_at: now,
          updated_at: now,
        } as never)
        .execute();
      const key = (id: string, projectId: string | null, hash: string) => ({
        id,
        project_id: projectId,
        name: `key ${id}`,
        prefix: 'ajs_abcd',
        key_hash: hashKey(hash),
        scopes: 'read',
        ip_allowlist: '["10.0.0.0/8"]',
        expires_at: '2099-01-01T00:00:00.000Z',
        created_at: now,
        last_used_at: now,
        revoked_at: null,
      });
      const kept = [
        key('01J00000000000000000000002', project.id, 'a'),
        key('01J00000000000000000000003', project.id, 'b'),
      ];
      await db.kysely.insertInto('api_keys').values(kept).execute();
      // No key without a project yet.
      await expect(
        db.kysely
          .insertInto('api_keys')
          .values(key('01J00000000000000000000004', null, 'c'))
          .execute(),
      ).rejects.toThrow();

      expect(await migrate(db)).toContain('0006_instance_keys');

      const rows = await db.kysely.selectFrom('api_keys').selectAll().orderBy('id').execute();
      expect(rows).toEqual(kept);
      await db.kysely
        .insertInto('api_keys')
        .values(key('01J00000000000000000000004', null, 'c'))
        .execute();
      // The hash is still unique, the project still must exist, and its keys still go with it.
      await expect(
        db.kysely
          .insertInto('api_keys')
          .values(key('01J00000000000000000000005', null, 'c'))
          .execute(),
      ).rejects.toThrow();
      await expect(
        db.kysely
          .insertInto('api_keys')
          .values(key('01J00000000000000000000006', '01J0000000000000000000NONE', 'd'))
          .execute(),
      ).rejects.toThrow();
      await db.kysely.deleteFrom('projects').where('id', '=', project.id).execute();
      const left = await db.kysely.selectFrom('api_keys').select(['id', 'project_id']).execute();
      expect(left).toEqual([{ id: '01J00000000000000000000004', project_id: null }]);
      const table = (await db.kysely.introspection.getTables()).find((each) => each.name === 'api_keys');
      expect(table?.columns.find((column) => column.name === 'project_id')?.isNullable).toBe(true);
      expect(await db.kysely.introspection.getTables()).not.toContainEqual(
        expect.objectContaining({ name: 'api_keys_next' }),
      );
    } finally {
      await db.close();
      await database.drop();
    }
  });
});
