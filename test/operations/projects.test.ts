import { describe, expect, it } from 'vitest';
import { makeHookSecret } from '../../src/operations/hook-secrets.js';
import { InputError } from '../../src/operations/input.js';
import { createProject, setProjectToken, updateProject } from '../../src/operations/projects.js';
import { createSecretBox } from '../../src/store/secrets.js';
import { testDialects, useTestStore } from '../support/db.js';
import { useRepository } from '../support/worker.js';

const box = createSecretBox('project-operations-test-key-0123456789abcdef');
const TOKEN = 'ghp_project_operation_token_1234';

const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => {
      throw new Error('accepted');
    },
    (caught: unknown) => caught,
  );
  expect(InputError.isInstance(error)).toBe(true);
  return (error as InputError).problems.map(({ field, problem }) => `${field}:${problem}`);
};

describe.each(testDialects())('project operations on %s', (dialect) => {
  const t = useTestStore(dialect);
  const temp = useRepository({ name: 'project-operations' });
  const deps = () => ({ store: t.store, secrets: () => box, sandbox: { unlimited: false } });

  it('makes a local project on its repository’s current branch', async () => {
    const project = await createProject(deps(), { name: ' Docs ', repository: temp.repo });
    expect(project).toMatchObject({ name: 'Docs', repository: temp.repo, host: 'local', baseBranch: 'main' });
    expect(project.hasHostToken).toBe(false);
  });

  it('names every broken rule at once and stores nothing', async () => {
    const before = (await t.store.projects.list()).length;
    expect(
      await refusal(
        createProject(deps(), {
          name: 'x'.repeat(101),
          repository: 'docs',
          publish: 'sometimes',
          defaultModel: 'foo:bar',
          dailyBudgetUsd: 0,
          mention: 'bot',
          checkTimeoutSeconds: Number.NaN,
        }),
      ),
    ).toEqual([
      'name:too_long',
      'publish:invalid',
      'mention:invalid',
      'dailyBudgetUsd:invalid',
      'defaultModel:invalid',
      'repository:not_absolute',
      'checkTimeoutSeconds:invalid',
    ]);
    expect(
      await refusal(createProject(deps(), { name: 'Docs', repository: temp.repo, baseBranch: 'a..b' })),
    ).toEqual(['baseBranch:invalid_branch']);
    expect(
      await refusal(createProject(deps(), { name: 'Docs', repository: temp.repo, baseBranch: 'live' })),
    ).toEqual(['baseBranch:invalid']);
    expect(await t.store.projects.list()).toHaveLength(before);
  });

  it('seals a remote project’s token and asks for it again when the repository changes', async () => {
    const input = { name: 'Remote', repository: 'https://github.com/acme/docs', host: 'github' };
    expect(await refusal(createProject(deps(), input))).toEqual(['token:missing']);
    const project = await createProject(deps(), {
      ...input,
      token: TOKEN,
      apiUrl: 'https://ghe.example/api/v3',
    });
    expect(project).toMatchObject({
      hasHostToken: true,
      hostSettings: { apiUrl: 'https://ghe.example/api/v3' },
    });
    // A change that keeps where the token goes keeps the token; the API URL stays when not named.
    const renamed = await updateProject(deps(), project.id, { name: 'Renamed', baseBranch: 'live' });
    expect(renamed).toMatchObject({ name: 'Renamed', baseBranch: 'live', hasHostToken: true });
    expect(renamed.hostSettings).toEqual({ apiUrl: 'https://ghe.example/api/v3' });
    expect(await refusal(updateProject(deps(), project.id, { baseBranch: '-x' }))).toEqual([
      'baseBranch:invalid_branch',
    ]);
    expect(
      await refusal(updateProject(deps(), project.id, { repository: 'https://github.com/acme/other' })),
    ).toEqual(['token:missing']);
    const moved = await updateProject(deps(), project.id, {
      repository: 'https://github.com/acme/other',
      token: `${TOKEN}-2`,
    });
    expect(moved).toMatchObject({ repository: 'https://github.com/acme/other', hasHostToken: true });
    const stored = await setProjectToken(deps(), project.id, `${TOKEN}-3`);
    expect(stored.hasHostToken).toBe(true);
  });

  it('refuses a token for a local project and an unknown project', async () => {
    const local = await createProject(deps(), { name: 'Local', repository: temp.repo });
    expect(await refusal(setProjectToken(deps(), local.id, TOKEN))).toEqual(['token:invalid']);
    await expect(updateProject(deps(), 'nope', { name: 'x' })).rejects.toMatchObject({
      code: 'project_not_found',
    });
  });

  it('makes a hook secret once, and a new one only when asked to rotate', async () => {
    const project = await createProject(deps(), { name: 'Hooks', repository: temp.repo });
    const first = await makeHookSecret(deps(), project.id, { rotate: false });
    expect(first).toMatchObject({ rotated: false, secret: expect.any(String) });
    expect(await makeHookSecret(deps(), project.id, { rotate: false })).toEqual({
      secret: null,
      rotated: false,
    });
    const second = await makeHookSecret(deps(), project.id, { rotate: true });
    expect(second.rotated).toBe(true);
    expect(second.secret).not.toBe(first.secret);
    await expect(makeHookSecret(deps(), 'nope', { rotate: true })).rejects.toMatchObject({
      code: 'project_not_found',
    });
  });
});
