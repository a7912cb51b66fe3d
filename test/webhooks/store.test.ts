import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { openDb } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import * as m0001 from '../../src/store/migrations/0001_initial.js';
import * as m0002 from '../../src/store/migrations/0002_worker.js';
import * as m0003 from '../../src/store/migrations/0003_dashboard.js';
import * as m0004 from '../../src/store/migrations/0004_published.js';
import { createSecretBox } from '../../src/store/secrets.js';
import { createStore } from '../../src/store/store.js';
import { createTestDatabase, openTestStore, testDialects } from '../support/db.js';

const box = createSecretBox('b'.repeat(40));

describe.each(testDialects())('the webhook outbox and endpoints in the store, on %s', (dialect) => {
  it('writes events in the job change’s transaction: a change that rolls back leaves none', async () => {
    const { store, close } = await openTestStore(dialect);
    try {
      const project = await store.projects.create({ name: 'Docs', repository: '/srv/docs' });
      const { endpoint } = await store.webhooks.create(
        { projectId: project.id, url: 'http://127.0.0.1:9/h', events: null, description: '' },
        box,
      );
      const input = {
        projectId: project.id,
        prompt: 'x',
        model: 'openai:gpt-5',
        baseRef: 'main',
        repository: '/r',
        draft: false,
      };
      const job = await store.jobs.create({ ...input, maxActive: 1 });
      // Over the cap: the create throws inside its transaction, and its event goes with it.
      await expect(store.jobs.create({ ...input, maxActive: 1 })).rejects.toBeInstanceOf(AppError);
      await store.jobs.archive(project.id, job.id);
      await store.jobs.archive(project.id, job.id); // unchanged: no second event
      const { deliveries } = await store.webhooks.listDeliveries(endpoint.id, { limit: 10 });
      expect(deliveries.map((d) => d.event.type)).toEqual(['job.archived', 'job.created']);
      expect(deliveries[0]?.event.data).toMatchObject({ job: { id: job.id, status: 'archived' } });
      expect(deliveries.every((d) => d.status === 'pending' && d.event.id.startsWith('msg_'))).toBe(true);
      // A project without endpoints gets no rows at all.
      const quiet = await store.projects.create({ name: 'Quiet', repository: '/srv/quiet' });
      await store.jobs.create({ ...input, projectId: quiet.id });
      expect(await store.webhooks.list(quiet.id)).toEqual([]);
    } finally {
      await close();
    }
  });

  it('writes no key a prompt holds into an event: the payload leaves for a stranger and is kept', async () => {
    const { store, close } = await openTestStore(dialect);
    try {
      const project = await store.projects.create({ name: 'Docs', repository: '/srv/docs' });
      const { endpoint } = await store.webhooks.create(
        { projectId: project.id, url: 'http://127.0.0.1:9/h', events: null, description: '' },
        box,
      );
      const apiKey = `ajs_${'K3y'.repeat(8)}`;
      const providerKey = `sk-ant-api03-${'p'.repeat(24)}`;
      await store.jobs.create({
        projectId: project.id,
        prompt: `Rotate ${apiKey} and ${providerKey}`,
        model: 'openai:gpt-5',
        baseRef: 'main',
        repository: '/r',
        draft: false,
      });
      const { deliveries } = await store.webhooks.listDeliveries(endpoint.id, { limit: 10 });
      expect(deliveries[0]?.event.data).toMatchObject({
        job: { prompt: 'Rotate ajs_[redacted] and [redacted]' },
      });
      const claimed = await store.webhooks.claim({ owner: 'test', limit: 10, leaseMs: 10_000 });
      expect(claimed).toHaveLength(1);
      for (const text of [JSON.stringify(deliveries), claimed[0]?.payload ?? '']) {
        expect(text).not.toContain(apiKey);
        expect(text).not.toContain(providerKey);
      }
    } finally {
      await close();
    }
  });

  it('prunes finished deliveries, their attempts and orphaned events past the cutoff, never pending ones', async () => {
    const { store, close } = await openTestStore(dialect);
    try {
      const project = await store.projects.create({ name: 'Docs', repository: '/srv/docs' });
      const endpoint = (
        await store.webhooks.create(
          { projectId: project.id, url: 'http://127.0.0.1:9/h', events: null, description: '' },
          box,
        )
      ).endpoint;
      const job = await store.jobs.create({
        projectId: project.id,
        prompt: 'x',
        model: 'openai:gpt-5',
        baseRef: 'main',
        repository: '/r',
        draft: false,
      });
      await store.jobs.archive(project.id, job.id);
      const [archived, created] = (await store.webhooks.listDeliveries(endpoint.id, { limit: 10 }))
        .deliveries;
      if (!archived || !created) throw new Error('expected two deliveries');
      // The create's delivery ended long ago with one attempt; the archive's is still pending.
      const { kysely } = store.db;
      const old = '2026-01-01T00:00:00.000Z';
      await kysely
        .updateTable('webhook_deliveries')
        .set({ status: 'succeeded', updated_at: old, next_attempt_at: null })
        .where('id', '=', created.id)
        .execute();
      await kysely
        .insertInto('webhook_attempts')
        .values({
          delivery_id: created.id,
          attempt: 1,
          at: old,
          response_status: 200,
          duration_ms: 5,
          error: null,
          response_excerpt: null,
        })
        .execute();
      await kysely.updateTable('webhook_events').set({ created_at: old }).execute();

      const cutoff = new Date('2026-02-01T00:00:00.000Z');
      expect(await store.webhooks.pruneDeliveries(cutoff)).toEqual({ deliveries: 1, events: 1 });
      const left = (await store.webhooks.listDeliveries(endpoint.id, { limit: 10 })).deliveries;
      expect(left.map((d) => [d.id, d.status])).toEqual([[archived.id, 'pending']]);
      const attempts = await kysely.selectFrom('webhook_attempts').selectAll().execute();
      expect(attempts).toEqual([]);
      // The pending delivery keeps its event, however old; a second prune finds nothing.
      expect(await store.webhooks.pruneDeliveries(cutoff)).toEqual({ deliveries: 0, events: 0 });
    } finally {
      await close();
    }
  });

  it('turns the old project webhookUrl into a disabled endpoint that a rotation can enable', async () => {
    // Project ids are ULIDs: the store answers other ids as unknown without a query.
    const [P1, P2] = ['01JDQ2J7T0V5Y8G1ZK3M4N6P71', '01JDQ2J7T0V5Y8G1ZK3M4N6P72'];
    const database = await createTestDatabase(dialect);
    const db = openDb({ url: database.url });
    try {
      const migrator = new Migrator({
        db: db.kysely,
        provider: {
          getMigrations: async () => ({
            '0001_initial': m0001,
            '0002_worker': m0002,
            '0003_dashboard': m0003,
            '0004_published': m0004,
          }),
        },
      });
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      const now = new Date().toISOString();
      const base = {
        repository: '/r',
        host: 'local',
        base_branch: 'main',
        publish: 'pull_request',
        created_at: now,
        updated_at: now,
      };
      // biome-ignore lint/suspicious/noExplicitAny: the table as it was before this migration
      const old = db.kysely as any;
      await old
        .insertInto('projects')
        .values([
          { ...base, id: P1, name: 'With', webhook_url: 'https://hooks.example.com/agentjobs' },
          { ...base, id: P2, name: 'Without', webhook_url: null },
        ])
        .execute();
      // The migrations after 0004 run, this one first.
      expect((await migrate(db))[0]).toBe('0005_webhooks');
      const store = createStore(db);
      const [migrated] = await store.webhooks.list(P1);
      expect(migrated).toMatchObject({
        url: 'https://hooks.example.com/agentjobs',
        enabled: false,
        events: null,
      });
      expect(migrated?.disabledReason).toContain('rotate the secret');
      expect(await store.webhooks.list(P2)).toEqual([]);
      // Without a secret it cannot be enabled; a rotation gives it one.
      await expect(store.webhooks.update(P1, migrated?.id ?? '', { enabled: true })).rejects.toMatchObject({
        code: 'invalid_request',
      });
      const rotated = await store.webhooks.rotateSecret(P1, migrated?.id ?? '', box);
      expect(rotated?.secret).toMatch(/^whsec_/);
      expect(rotated?.endpoint.previousSecretExpiresAt).toBeNull();
      expect(await store.webhooks.update(P1, migrated?.id ?? '', { enabled: true })).toMatchObject({
        enabled: true,
      });
      // The column is gone: projects read as before, without it.
      expect(await store.projects.get(P1)).not.toHaveProperty('webhookUrl');
    } finally {
      await db.close();
      await database.drop();
    }
  });
});
