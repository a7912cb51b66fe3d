import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey, hashKey } from '../src/domain/keys.js';
import type { Project } from '../src/domain/project.js';
import { makeTestJob, openTestStore, type TestStore, testDialects, testJobInput } from './support/db.js';

// One suite, every dialect: the store must behave the same on SQLite and PostgreSQL.
describe.each(testDialects())('store on %s', (dialect) => {
  let t: TestStore;
  let project: Project;

  beforeAll(async () => {
    t = await openTestStore(dialect);
    project = await t.store.projects.create({ name: 'Docs', repository: '/tmp/docs' });
  });
  afterAll(() => t.close());

  const newJob = (prompt = 'Fix the typo on the home page') => makeTestJob(t.store, project, prompt);

  it('creates a project with defaults', async () => {
    expect(project).toMatchObject({
      host: 'local',
      baseBranch: 'main',
      publish: 'pull_request',
      hasHostToken: false,
    });
    expect(await t.store.projects.get(project.id)).toEqual(project);
    expect(await t.store.projects.get('nope')).toBeUndefined();
  });

  it('creates a job with every field, a branch, a first message and a first event', async () => {
    const job = await newJob();
    expect(job).toMatchObject({
      status: 'active',
      phase: 'queued',
      prLink: null,
      archivedAt: null,
      error: null,
      usage: { inputTokens: 0, outputTokens: 0, steps: 0 },
      source: { repository: '/tmp/docs' },
    });
    expect(job.source.ref).toMatch(/^agentjobs\/[0-9a-z]{8}-fix-the-typo-on-the-home-page$/);
    expect(await t.store.jobs.get(project.id, job.id)).toEqual(job);
    const events = await t.store.events.list(job.id, 0, 10);
    expect(events).toEqual([
      { seq: 1, type: 'status', at: job.createdAt, data: { status: 'active', phase: 'queued' } },
    ]);
  });

  it('gives back the job while it is unchanged, and the new state once it changes', async () => {
    const job = await newJob();
    expect(await t.store.jobs.get(project.id, job.id)).toEqual(job);
    expect(await t.store.jobs.get(project.id, job.id)).toEqual(job);
    const archived = await t.store.jobs.archive(project.id, job.id);
    const after = await t.store.jobs.get(project.id, job.id);
    expect(after).toEqual(archived);
    expect(after?.archivedAt).not.toBeNull();
  });

  it('does not find a job through another project', async () => {
    const other = await t.store.projects.create({ name: 'Other', repository: '/tmp/other' });
    const job = await newJob();
    expect(await t.store.jobs.get(other.id, job.id)).toBeUndefined();
  });

  it('lists newest first with pages that neither skip nor repeat', async () => {
    const fresh = await t.store.projects.create({ name: 'Paging', repository: '/tmp/p' });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const job = await makeTestJob(t.store, fresh, `job ${i}`);
      ids.unshift(job.id);
    }
    const seen: string[] = [];
    let before: string | undefined;
    for (;;) {
      const page = await t.store.jobs.list(fresh.id, { limit: 3, ...(before ? { before } : {}) });
      seen.push(...page.jobs.map((job) => job.id));
      if (!page.more) break;
      before = page.jobs.at(-1)?.id;
    }
    expect(seen).toEqual(ids);
  });

  it('refuses a create at the cap of active jobs, and only there', async () => {
    const fresh = await t.store.projects.create({ name: 'Counting', repository: '/tmp/c' });
    const create = (prompt: string, maxActive: number) =>
      t.store.jobs.create(testJobInput(fresh, prompt, { maxActive }));
    for (let i = 0; i < 4; i++) await create(`c${i}`, 10);
    const active = await t.store.jobs.list(fresh.id, { status: 'active', limit: 10 });
    expect(active.jobs).toHaveLength(4);
    await expect(create('over', 2)).rejects.toMatchObject({ code: 'too_many_active_jobs' });
    await expect(create('at', 4)).rejects.toMatchObject({ code: 'too_many_active_jobs' });
    await create('under', 5);
  });

  it('follows the state machine: follow-up, archive, archive again, no follow-up after archive', async () => {
    const job = await newJob();
    const queued = await t.store.jobs.followUp(project.id, job.id, 'Also fix the footer');
    expect(queued.status).toBe('active');
    const archived = await t.store.jobs.archive(project.id, job.id);
    expect(archived.status).toBe('archived');
    expect(archived.archivedAt).not.toBeNull();
    expect(archived.phase).toBeNull();
    expect(await t.store.jobs.archive(project.id, job.id)).toEqual(archived);
    await expect(t.store.jobs.followUp(project.id, job.id, 'more')).rejects.toMatchObject({
      code: 'job_archived',
    });
    const events = await t.store.events.list(job.id, 0, 100);
    expect(events.map((event) => event.seq)).toEqual([1, 2, 3]);
    expect(events.map((event) => event.type)).toEqual(['status', 'message', 'status']);
    expect(await t.store.events.list(job.id, 2, 100)).toHaveLength(1);
  });

  it('hands out distinct event numbers under concurrent appends', async () => {
    const job = await newJob();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.store.events.append(job.id, 'message', { role: 'assistant', text: `${i}` }),
      ),
    );
    const seqs = (await t.store.events.list(job.id, 0, 100)).map((event) => event.seq);
    expect(seqs).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
  });

  it('keeps only the hash of an API key and finds it by hash', async () => {
    const key = generateKey();
    const record = await t.store.apiKeys.create({ projectId: project.id, key, name: 'ci', scopes: ['read'] });
    expect(JSON.stringify(record)).not.toContain(key);
    const found = await t.store.apiKeys.findByHash(hashKey(key));
    expect(found?.id).toBe(record.id);
    expect(await t.store.apiKeys.revoke(project.id, record.id)).toBe(true);
    expect((await t.store.apiKeys.findByHash(hashKey(key)))?.revokedAt).not.toBeNull();
    expect(await t.store.apiKeys.revoke(project.id, 'missing')).toBe(false);
  });

  it("records a key's last use at most once a minute", async () => {
    const record = await t.store.apiKeys.create({
      projectId: project.id,
      key: generateKey(),
      name: 'poller',
      scopes: ['read'],
    });
    const lastUsed = async () =>
      (await t.store.apiKeys.list(project.id)).find((k) => k.id === record.id)?.lastUsedAt;
    const start = Date.parse('2026-11-23T10:00:00.000Z');
    await t.store.apiKeys.touch(record, start);
    expect(await lastUsed()).toBe('2026-11-23T10:00:00.000Z');
    expect(t.store.apiKeys.touch(record, start + 59_000)).toBeUndefined();
    expect(await lastUsed()).toBe('2026-11-23T10:00:00.000Z');
    await t.store.apiKeys.touch(record, start + 60_000);
    expect(await lastUsed()).toBe('2026-11-23T10:01:00.000Z');
  });

  it('reserves idempotency keys: reserved, in flight, mismatch, done', async () => {
    const key = `k-${Date.now()}`;
    const claim = (owner: string) => ({ projectId: project.id, key, owner });
    expect(await t.store.idempotency.reserve(claim('a'), 'h1')).toEqual({ state: 'reserved' });
    expect(await t.store.idempotency.reserve(claim('b'), 'h1')).toEqual({ state: 'in_flight' });
    expect(await t.store.idempotency.reserve(claim('c'), 'h2')).toEqual({ state: 'mismatch' });
    // Only the owner's release gives the key back.
    await t.store.idempotency.release(claim('b'));
    expect(await t.store.idempotency.reserve(claim('d'), 'h1')).toEqual({ state: 'in_flight' });
    // A create under a claim that does not hold the key makes nothing.
    await expect(
      t.store.jobs.create(testJobInput(project, 'x', { idempotency: claim('b') })),
    ).rejects.toMatchObject({ code: 'idempotency_in_flight' });
    const job = await t.store.jobs.create(testJobInput(project, 'x', { idempotency: claim('a') }));
    expect(await t.store.idempotency.reserve(claim('e'), 'h1')).toEqual({
      state: 'done',
      jobId: job.id,
    });
    // A day later the key is free again.
    const later = new Date(Date.now() + 25 * 60 * 60 * 1000);
    expect(await t.store.idempotency.reserve(claim('f'), 'h2', later)).toEqual({ state: 'reserved' });
  });

  it('counts rate-limit hits per window', async () => {
    const now = Date.UTC(2026, 0, 1, 10, 30);
    const first = await t.store.rateLimits.hit('project:x', 3_600_000, now);
    const second = await t.store.rateLimits.hit('project:x', 3_600_000, now + 1000);
    expect([first.count, second.count]).toEqual([1, 2]);
    expect(second.ttlMs).toBe(30 * 60_000 - 1000);
    expect((await t.store.rateLimits.hit('project:x', 3_600_000, now + 3_600_000)).count).toBe(1);
  });
});
