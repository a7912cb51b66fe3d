/**
 * `store.hostEvents` on each database: a delivery recorded once however often and however
 * concurrently it comes, its id free again after 7 days, and the dispatcher's claim (one holder
 * at a time, again after the lease, never after it is marked processed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostEvent } from '../../src/domain/host-event.js';
import type { Project } from '../../src/domain/project.js';
import { HOST_EVENT_RETENTION_MS } from '../../src/store/host-events.js';
import { openTestStore, type TestStore, testDialects } from '../support/db.js';

const push: HostEvent = {
  kind: 'push',
  repository: { kind: 'content' },
  branch: 'main',
  before: null,
  after: 'b'.repeat(40),
  commits: [],
};

describe.each(testDialects())('host events in the store, on %s', (dialect) => {
  let database: TestStore;
  beforeAll(async () => {
    database = await openTestStore(dialect);
  });
  afterAll(async () => {
    await database?.close();
  });
  const newProject = () =>
    database.store.projects.create({ name: 'Docs', repository: 'https://github.com/o/r.git' });
  const record = (project: Project, deliveryId: string, now?: Date) =>
    database.store.hostEvents.record({ projectId: project.id, host: 'github', deliveryId, event: push }, now);

  it('records a delivery once, however many copies arrive at once', async () => {
    const project = await newProject();
    const results = await Promise.all(Array.from({ length: 10 }, () => record(project, 'same')));
    expect(results.filter((result) => !result.duplicate)).toHaveLength(1);
    const first = results.find((result) => !result.duplicate)?.event.id;
    expect(new Set(results.map((result) => result.event.id))).toEqual(new Set([first]));
    expect(await database.store.hostEvents.count(project.id)).toBe(1);
    // The same id from another host is another delivery.
    const gitlab = await database.store.hostEvents.record({
      projectId: project.id,
      host: 'gitlab',
      deliveryId: 'same',
      event: push,
    });
    expect(gitlab.duplicate).toBe(false);
  });

  it('forgets a delivery id after 7 days, and prunes what is older', async () => {
    const project = await newProject();
    const old = new Date(Date.now() - HOST_EVENT_RETENTION_MS - 60_000);
    await record(project, 'weekly', old);
    await record(project, 'stale', old);
    const again = await record(project, 'weekly');
    expect(again.duplicate).toBe(false);
    expect(await database.store.hostEvents.count(project.id)).toBe(2);
    expect(await database.store.hostEvents.prune()).toBeGreaterThanOrEqual(1);
    expect((await database.store.hostEvents.list(project.id)).map((row) => row.deliveryId)).toEqual([
      'weekly',
    ]);
  });

  it('lets one dispatcher claim an event at a time, again after the lease, never once processed', async () => {
    // Events of earlier tests are claimed (and processed) first, so this test sees only its own.
    for (
      let batch = await database.store.hostEvents.claimUnprocessed(100);
      batch.length;
      batch = await database.store.hostEvents.claimUnprocessed(100)
    )
      for (const event of batch) await database.store.hostEvents.markProcessed(event.id);
    const project = await newProject();
    const a = await record(project, 'a', new Date(Date.now() - 2000));
    const b = await record(project, 'b', new Date(Date.now() - 1000));
    const [first, second] = await Promise.all([
      database.store.hostEvents.claimUnprocessed(1),
      database.store.hostEvents.claimUnprocessed(1),
    ]);
    const claimed = [...(first ?? []), ...(second ?? [])].map((event) => event.id).sort();
    expect(claimed).toEqual([a.event.id, b.event.id].sort());
    expect(await database.store.hostEvents.claimUnprocessed(10)).toEqual([]);
    // A dispatcher that died: its lease runs out and the events are claimed again, oldest first.
    const later = new Date(Date.now() + 120_000);
    const reclaimed = await database.store.hostEvents.claimUnprocessed(10, 60_000, later);
    expect(reclaimed.map((event) => event.deliveryId)).toEqual(['a', 'b']);
    expect(reclaimed[0]?.event).toEqual(push);
    expect(await database.store.hostEvents.markProcessed(a.event.id)).toBe(true);
    const muchLater = new Date(Date.now() + 240_000);
    expect(
      (await database.store.hostEvents.claimUnprocessed(10, 60_000, muchLater)).map(
        (event) => event.deliveryId,
      ),
    ).toEqual(['b']);
    expect(await database.store.hostEvents.markProcessed('01JDQ2J7T0V5Y8G1ZK3M4N6P7R')).toBe(false);
  });

  it('seals the hook secret apart from the host token, bound to the project', async () => {
    const project = await newProject();
    expect(await database.store.projects.hasHookSecret(project.id)).toBe(false);
    const { createSecretBox } = await import('../../src/store/secrets.js');
    const box = createSecretBox('k'.repeat(40));
    const secret = await database.store.projects.rotateHookSecret(project.id, box);
    expect(secret).toMatch(/^hooksec_[A-Za-z0-9_-]{43}$/);
    expect(await database.store.projects.hasHookSecret(project.id)).toBe(true);
    expect(await database.store.projects.hookSecret(project.id, box)).toBe(secret);
    const row = await database.db.kysely
      .selectFrom('projects')
      .selectAll()
      .where('id', '=', project.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(String(secret));
    // Sealed for the hook secret: it does not open as the project's host token.
    await database.db.kysely
      .updateTable('projects')
      .set({ host_token_encrypted: row.hook_secret_sealed })
      .where('id', '=', project.id)
      .execute();
    await expect(database.store.projects.hostToken(project.id, box)).rejects.toThrow(/cannot be opened/);
    expect(await database.store.projects.rotateHookSecret('01JDQ2J7T0V5Y8G1ZK3M4N6P7R', box)).toBeUndefined();
  });
});
