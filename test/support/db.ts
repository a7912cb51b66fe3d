import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import type { Project } from '../../src/domain/project.js';
import { type Db, openDb } from '../../src/store/db.js';
import type { NewJob } from '../../src/store/jobs.js';
import { migrate } from '../../src/store/migrate.js';
import { createStore, type Store } from '../../src/store/store.js';
import { useFixture } from './use-fixture.js';

export type TestDialect = 'sqlite' | 'postgres';

/** A job of `project` on `main` with `prompt`, as `store.jobs.create` takes it, with `more` over it. */
export function testJobInput(
  project: Pick<Project, 'id' | 'repository'>,
  prompt: string,
  more: Partial<NewJob> = {},
): NewJob {
  return {
    projectId: project.id,
    prompt,
    model: 'anthropic:claude-sonnet-4-5',
    baseRef: 'main',
    repository: project.repository,
    draft: false,
    ...more,
  };
}

/** Makes a job of `project` on `main` with `prompt`, straight in the store (no worker runs it). */
export function makeTestJob(
  store: Store,
  project: Pick<Project, 'id' | 'repository'>,
  prompt: string,
): Promise<Job> {
  return store.jobs.create(testJobInput(project, prompt));
}

/** Ends the job's lease a second ago, as if its worker had stopped renewing it. */
export function expireLease(db: Db, jobId: string): Promise<unknown> {
  return db.kysely
    .updateTable('jobs')
    .set({ lease_expires_at: new Date(Date.now() - 1000).toISOString() })
    .where('id', '=', jobId)
    .execute();
}

/** The dialects this run covers: SQLite always, PostgreSQL when the global setup found one. */
export function testDialects(): TestDialect[] {
  return inject('postgresUrl') ? ['sqlite', 'postgres'] : ['sqlite'];
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database of its own: a temp SQLite file, or a new PostgreSQL database. */
export async function createTestDatabase(dialect: TestDialect): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-db-'));
    return {
      url: `sqlite:${path.join(dir, 'test.db')}`,
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const adminUrl = inject('postgresUrl');
  if (!adminUrl) throw new Error('PostgreSQL is not available in this run');
  const name = `agentjobs_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

export interface TestStore {
  db: Db;
  store: Store;
  url: string;
  close(): Promise<void>;
}

/** A migrated store on a fresh database; `close` also drops the database. */
export async function openTestStore(dialect: TestDialect): Promise<TestStore> {
  const database = await createTestDatabase(dialect);
  const db = openDb({ url: database.url, poolSize: 5 });
  await migrate(db);
  const store = createStore(db);
  return {
    db,
    store,
    url: database.url,
    close: async () => {
      await store.close();
      await database.drop();
    },
  };
}

/**
 * The migrated store of `dialect` for the enclosing `describe`: opened in its `beforeAll`, closed
 * (its database dropped) in its `afterAll`. Called first, it closes after whatever the describe's
 * later `afterAll` hooks stop. See `useFixture`.
 */
export function useTestStore(dialect: TestDialect): TestStore {
  return useFixture(openTestStore, dialect, (opened) => opened.close());
}

/** Ends every active job, held or queued, so that the next test starts from an empty queue. */
export const endActiveJobs = (db: Db) =>
  db.kysely
    .updateTable('jobs')
    .set({ status: 'completed', phase: null, lease_owner: null, lease_expires_at: null })
    .where('status', '=', 'active')
    .execute();
