/**
 * `agentjobs project context add|list|remove` and `project get` (the built CLI) on every database:
 * what is stored, and the refusals that store nothing (a bad name, a duplicate, an eleventh, a
 * folder that is no repository or has no commits), with a token that never shows.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDocsArgs, useCliData } from '../support/check-cli.js';
import { testDialects } from '../support/db.js';
import { runCli } from '../support/processes.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], { cwd, stdio: 'pipe' });

describe.each(testDialects())('project context on %s', (dialect) => {
  const data = useCliData('project-context', dialect);
  let projectId: string;
  let code: string;
  const token = 'ctx-token-5b1f0e9c2d7a4a31';

  const cli = (args: string[], input?: string) => runCli(args, data.env, input);
  const addContext = (...args: string[]) => cli(['project', 'context', 'add', projectId, ...args]);
  const listed = async () =>
    JSON.parse((await cli(['project', 'context', 'list', projectId, '--json'])).stdout)
      .contextRepositories as {
      name: string;
    }[];

  beforeAll(async () => {
    for (const name of ['docs', 'code']) {
      git(data.dir, 'init', '-q', '-b', 'main', name);
      git(path.join(data.dir, name), 'commit', '-q', '--allow-empty', '-m', 'init');
    }
    code = path.join(data.dir, 'code');
    const created = await cli(createDocsArgs(path.join(data.dir, 'docs'), '--json'));
    expect(created.code, created.stderr).toBe(0);
    projectId = JSON.parse(created.stdout).id;
  });

  it('adds, lists, shows in project get, and removes', async () => {
    const added = await addContext('--name', 'code', '--repo', code, '--json');
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({
      projectId,
      name: 'code',
      repository: code,
      ref: null,
      host: 'local',
      hasToken: false,
    });
    const remote = await cli(
      [
        'project',
        'context',
        'add',
        projectId,
        '--name',
        'api',
        '--repo',
        'https://gitea.example/acme/api.git',
        '--host',
        'gitea',
        '--ref',
        'release',
        '--token-stdin',
        '--json',
      ],
      `${token}\n`,
    );
    expect(remote.code, remote.stderr).toBe(0);
    expect(JSON.parse(remote.stdout)).toMatchObject({
      name: 'api',
      host: 'gitea',
      ref: 'release',
      hasToken: true,
    });

    const shown = await cli(['project', 'get', projectId]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(
      /api\s+https:\/\/gitea\.example\/acme\/api\.git\s+release\s+gitea\s+stored, encrypted/,
    );
    expect(shown.stdout).toMatch(/code\s+\S+\s+\(default branch\)\s+local/);
    const json = JSON.parse((await cli(['project', 'get', projectId, '--json'])).stdout);
    expect(json.contextRepositories.map((repository: { name: string }) => repository.name)).toEqual([
      'api',
      'code',
    ]);
    for (const output of [added, remote, shown]) expect(output.stdout + output.stderr).not.toContain(token);

    const removed = await cli(['project', 'context', 'remove', projectId, 'api']);
    expect(removed.code, removed.stderr).toBe(0);
    expect((await listed()).map((repository) => repository.name)).toEqual(['code']);
    // project check also asks git whether each context repository can be fetched.
    const checked = JSON.parse((await cli(['project', 'check', projectId, '--json'])).stdout);
    expect(checked.checks).toContainEqual({
      name: 'context repository code',
      ok: true,
      detail: 'git can fetch its default branch.',
    });
    const again = await cli(['project', 'context', 'remove', projectId, 'api']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('The project has no context repository named "api".');
  });

  it('refuses a bad name, a duplicate, a folder that is no repository or has no commits', async () => {
    const before = await listed();
    const bad = await cli(['project', 'context', 'add', projectId, '--name', 'Code_1', '--repo', code]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--name: The name "Code_1" is not allowed');
    const duplicate = await cli(['project', 'context', 'add', projectId, '--name', 'code', '--repo', code]);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain('--name: The project already has a context repository named "code".');
    const plain = path.join(data.dir, 'plain');
    fs.mkdirSync(plain, { recursive: true });
    const notGit = await addContext('--name', 'plain', '--repo', plain, '--json');
    expect(notGit.code).toBe(1);
    expect(JSON.parse(notGit.stdout)).toMatchObject({ code: 'invalid_request' });
    expect(JSON.parse(notGit.stdout).error).toContain(`${plain} is not a git repository`);
    git(data.dir, 'init', '-q', '-b', 'main', 'empty');
    const empty = await addContext('--name', 'empty', '--repo', path.join(data.dir, 'empty'));
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('has no commits yet');
    const noBranch = await addContext('--name', 'live', '--repo', code, '--ref', 'live');
    expect(noBranch.code).toBe(1);
    expect(noBranch.stderr).toContain('--ref:');
    const localToken = await cli(
      ['project', 'context', 'add', projectId, '--name', 'tok', '--repo', code, '--token-stdin'],
      token,
    );
    expect(localToken.code).toBe(1);
    expect(localToken.stderr).toContain('A local repository takes no token.');
    expect(await listed()).toEqual(before);
  });

  it('refuses an eleventh', async () => {
    for (let index = (await listed()).length; index < 10; index++) {
      const added = await addContext('--name', `code-${index}`, '--repo', code);
      expect(added.code, added.stderr).toBe(0);
    }
    expect(await listed()).toHaveLength(10);
    const eleventh = await addContext('--name', 'one-more', '--repo', code);
    expect(eleventh.code).toBe(1);
    expect(eleventh.stderr).toContain('A project has at most 10 context repositories; remove one first.');
    expect(await listed()).toHaveLength(10);
  });
});
