import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { Project } from '../../src/domain/project.js';
import { makeTestJob, openTestStore, type TestStore, testDialects } from '../support/db.js';
import { KUBERNETES_DIR, readEnvFile } from './manifests.js';

const scaling = parseAllDocuments(
  fs.readFileSync(path.join(KUBERNETES_DIR, 'base/worker-scaling.yaml'), 'utf8'),
)
  .map((document) => document.toJS())
  .find((object) => object.kind === 'ScaledObject');
const query: string = scaling.spec.triggers[0].metadata.query;
const config = readEnvFile(path.join(KUBERNETES_DIR, 'base/config.env'));
const perProject = Number(config.AGENTJOBS_PROJECT_CONCURRENCY);

// The KEDA postgresql trigger's query (deploy/kubernetes/base/worker-scaling.yaml), run as KEDA runs
// it against a migrated database: one integer, the jobs the fleet could be running now. KEDA has
// no SQLite scaler (a SQLite install is one process, with nothing to scale), so PostgreSQL only.
describe.skipIf(!testDialects().includes('postgres'))('the KEDA query of the jobs to run', () => {
  let t: TestStore;
  let client: pg.Client;
  // Roles belong to the whole PostgreSQL cluster: a name no other run uses.
  const role = `agentjobs_keda_${randomBytes(6).toString('hex')}`;

  beforeAll(async () => {
    t = await openTestStore('postgres');
    client = new pg.Client({ connectionString: t.url });
    await client.connect();
    // The least privilege docs/deploy.md gives KEDA's role: three columns of one table.
    await client.query(`create role ${role} nologin`);
    await client.query(`grant select (project_id, status, phase) on jobs to ${role}`);
  });
  afterAll(async () => {
    await client?.query('reset role');
    await client?.query(`drop owned by ${role}`);
    await client?.query(`drop role if exists ${role}`);
    await client?.end();
    await t?.close();
  });

  /** The query's one value, as KEDA's role reads it; fails unless it is one integer column. */
  const jobsToRun = async () => {
    await client.query(`set role ${role}`);
    try {
      const result = await client.query(query);
      expect(result.rows).toHaveLength(1);
      expect(result.fields).toHaveLength(1);
      expect(result.fields[0]?.dataTypeID).toBe(pg.types.builtins.INT4);
      return Object.values(result.rows[0])[0];
    } finally {
      await client.query('reset role');
    }
  };
  const newJob = (project: Project) => makeTestJob(t.store, project, 'Fix the typo');

  it('counts queued jobs and jobs a worker holds, each project up to its concurrency, and nothing finished', async () => {
    const docs = await t.store.projects.create({ name: 'Docs', repository: '/tmp/docs' });
    const site = await t.store.projects.create({ name: 'Site', repository: '/tmp/site' });
    expect(await jobsToRun()).toBe(0);

    const first = await newJob(docs);
    expect(await jobsToRun()).toBe(1);

    // Claimed: no longer queued, still wants its worker.
    const [claimed] = await t.store.queue.claim({ owner: 'worker-1', limit: 1, perProject, leaseMs: 60_000 });
    expect(claimed?.job.id).toBe(first.id);
    expect(await jobsToRun()).toBe(1);

    // One project's backlog counts up to what the service lets it run at once.
    for (let i = 0; i < perProject + 2; i++) await newJob(docs);
    expect(await jobsToRun()).toBe(perProject);

    const other = await newJob(site);
    expect(await jobsToRun()).toBe(perProject + 1);

    // Archived (and completed or failed alike: not active) jobs want no worker.
    await t.store.jobs.archive(site.id, other.id);
    expect(await jobsToRun()).toBe(perProject);
  });
});
