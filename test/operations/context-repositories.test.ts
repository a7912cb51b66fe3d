/**
 * The shared add of a context repository (`operations/context-repositories.ts`) and its store on every
 * database: the limit holds when adds race, a token is sealed and opens only for its own row, and
 * a refusal names its field and stores nothing, and a path inside the data directory is refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { addContextRepository } from '../../src/operations/context-repositories.js';
import { createSecretBox, SecretError } from '../../src/store/secrets.js';
import { testDialects, useTestStore } from '../support/db.js';
import { makeRepo, useRepository } from '../support/worker.js';

const box = createSecretBox('context-repositories-test-key-0123456789abcdef');
const TOKEN = 'ctx-store-token-f00dfeed1234';

describe.each(testDialects())('context repositories in the store on %s', (dialect) => {
  const t = useTestStore(dialect);
  const temp = useRepository({ name: 'context-store' });
  const dataDir = () => path.join(temp.dir, 'data');
  const deps = () => ({ store: t.store, secrets: () => box, dataDir: dataDir() });

  it('lets exactly 10 of 12 racing adds in', async () => {
    const project = await t.store.projects.create({ name: 'Race', repository: temp.repo });
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, index) =>
        addContextRepository(deps(), project.id, { name: `code-${index}`, repository: temp.repo }),
      ),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(10);
    for (const result of results.filter((result) => result.status === 'rejected'))
      expect((result as PromiseRejectedResult).reason).toMatchObject({
        code: 'invalid_request',
        message: 'A project has at most 10 context repositories; remove one first.',
      });
    expect(await t.store.contextRepositories.list(project.id)).toHaveLength(10);
  });

  it('seals a token that opens for its own project and name only', async () => {
    const project = await t.store.projects.create({ name: 'Sealed', repository: temp.repo });
    await addContextRepository(deps(), project.id, {
      name: 'api',
      repository: 'https://github.com/acme/api',
      token: TOKEN,
    });
    await addContextRepository(deps(), project.id, {
      name: 'web',
      repository: 'https://github.com/acme/web',
    });
    expect(await t.store.contextRepositories.token(project.id, 'api', box)).toBe(TOKEN);
    expect(await t.store.contextRepositories.token(project.id, 'web', box)).toBeNull();
    const { rows } = await sql<{
      token_sealed: string;
    }>`select token_sealed from context_repositories where name = 'api'`.execute(t.db.kysely);
    const sealed = rows[0]?.token_sealed ?? '';
    expect(sealed.startsWith('v1.')).toBe(true);
    expect(sealed).not.toContain(TOKEN);
    // The ciphertext copied onto another row does not open there.
    await t.db.kysely
      .updateTable('context_repositories')
      .set({ token_sealed: sealed })
      .where('project_id', '=', project.id)
      .where('name', '=', 'web')
      .execute();
    await expect(t.store.contextRepositories.token(project.id, 'web', box)).rejects.toBeInstanceOf(
      SecretError,
    );
  });

  it('names the field of a refusal and stores nothing', async () => {
    const project = await t.store.projects.create({ name: 'Refused', repository: temp.repo });
    const refusal = (input: Parameters<typeof addContextRepository>[2]) =>
      addContextRepository(deps(), project.id, input).then(
        () => null,
        (error: unknown) => (error instanceof AppError ? error.details?.[0]?.path : error),
      );
    expect(await refusal({ name: '-code', repository: temp.repo })).toBe('name');
    expect(await refusal({ name: 'code', repository: 'relative/path' })).toBe('repository');
    expect(await refusal({ name: 'code', repository: path.join(temp.dir, 'nowhere') })).toBe('repository');
    expect(await refusal({ name: 'code', repository: temp.repo, ref: 'no-such-branch' })).toBe('ref');
    expect(await refusal({ name: 'code', repository: temp.repo, ref: '-x' })).toBe('ref');
    expect(await refusal({ name: 'code', repository: 'https://user:secret@github.com/acme/api' })).toBe(
      'repository',
    );
    expect(await refusal({ name: 'code', repository: 'ext::sh -c id' })).toBe('repository');
    expect(await refusal({ name: 'code', repository: 'http://example.com/acme/api', host: 'github' })).toBe(
      'repository',
    );
    expect(await refusal({ name: 'code', repository: 'https://github.com/acme/api', host: 'local' })).toBe(
      'host',
    );
    expect(await refusal({ name: 'code', repository: temp.repo, host: 'bitbucket' })).toBe('host');
    expect(await t.store.contextRepositories.list(project.id)).toEqual([]);
  });

  it('refuses a local repository inside the data directory, however it is named', async () => {
    const project = await t.store.projects.create({ name: 'Data dir', repository: temp.repo });
    // A repository in the data directory (another project's mirror, say), the data directory
    // itself, a file:// URL to it, and a symlink from outside that leads into it.
    const inside = makeRepo(path.join(dataDir(), 'mirrors', 'other')).repo;
    fs.symlinkSync(dataDir(), path.join(temp.dir, 'looks-outside'));
    const named = [
      inside,
      dataDir(),
      `file://${inside}`,
      path.join(temp.dir, 'looks-outside', 'mirrors', 'other', 'upstream'),
      `${dataDir()}/mirrors/../mirrors/other/upstream`,
    ];
    for (const repository of named) {
      const refused = await addContextRepository(deps(), project.id, { name: 'code', repository }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused, repository).toMatchObject({
        code: 'invalid_request',
        message: expect.stringContaining("is inside the service's data directory"),
        details: [{ path: 'repository' }],
      });
    }
    expect(await t.store.contextRepositories.list(project.id)).toEqual([]);
    // Beside the data directory is fine.
    await addContextRepository(deps(), project.id, { name: 'code', repository: temp.repo });
    expect((await t.store.contextRepositories.list(project.id)).map((each) => each.name)).toEqual(['code']);
  });
});
