import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/store/secrets.js';
import { openTestStore, type TestStore, testDialects } from '../support/db.js';

// Code-host tokens at rest (docs/architecture.md#the-queue-and-its-fencing): sealed in the row, opened only with the key.
describe.each(testDialects())('host tokens on %s', (dialect) => {
  let t: TestStore;
  beforeAll(async () => {
    t = await openTestStore(dialect);
  });
  afterAll(async () => {
    await t.close();
  });

  it('stores the token sealed and gives it back only with the key', async () => {
    const box = createSecretBox(randomBytes(32).toString('base64url'));
    const project = await t.store.projects.create({
      name: 'Docs',
      repository: 'https://github.com/org/repo',
      host: 'github',
    });
    expect(project.hasHostToken).toBe(false);
    expect(await t.store.projects.hostToken(project.id, box)).toBeNull();

    expect(await t.store.projects.setHostToken(project.id, 'ghp_plain-token-1234', box)).toBe(true);
    expect((await t.store.projects.get(project.id))?.hasHostToken).toBe(true);
    expect(await t.store.projects.hostToken(project.id, box)).toBe('ghp_plain-token-1234');

    const row = await t.db.kysely
      .selectFrom('projects')
      .selectAll()
      .where('id', '=', project.id)
      .executeTakeFirst();
    expect(JSON.stringify(row)).not.toContain('plain-token');
    // Another key cannot open it.
    const other = createSecretBox(randomBytes(32).toString('base64url'));
    await expect(t.store.projects.hostToken(project.id, other)).rejects.toThrow(/cannot be opened/);
    // The project no longer carries a token once it is removed.
    await t.store.projects.setHostToken(project.id, null, box);
    expect(await t.store.projects.hostToken(project.id, box)).toBeNull();
    expect(await t.store.projects.setHostToken('nope', 'x', box)).toBe(false);
  });
});
