import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDocsArgs, useCliData } from '../support/check-cli.js';
import { runCli } from '../support/processes.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], { cwd, stdio: 'pipe' });

// `project check` (the built CLI) on a setup command that installs only from a lockfile (issue 37):
// it says so when the base branch has none, before a job's setup fails on it.
describe('project check and the setup command’s lockfile', () => {
  const data = useCliData('project-lockfile', 'sqlite');
  let repo: string;
  const cli = (args: string[]) => runCli(args, data.env);
  const check = async (projectId: string) => {
    const checked = JSON.parse((await cli(['project', 'check', projectId, '--json'])).stdout);
    return (checked.checks as { name: string; ok: boolean; detail: string }[]).find(
      (each) => each.name === 'setup lockfile',
    );
  };

  beforeAll(() => {
    repo = path.join(data.dir, 'docs');
    git(data.dir, 'init', '-q', '-b', 'main', 'docs');
    fs.writeFileSync(
      path.join(repo, 'package.json'),
      '{"devDependencies":{"markdownlint-cli2":"^0.13.0"}}\n',
    );
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'init');
  });

  it('warns when `npm ci` has no package-lock.json, and is satisfied once one is committed', async () => {
    const created = await cli(createDocsArgs(repo, '--setup-command', 'npm ci', '--json'));
    expect(created.code, created.stderr).toBe(0);
    const projectId = JSON.parse(created.stdout).id;
    const missing = await check(projectId);
    expect(missing).toMatchObject({ ok: false });
    expect(missing?.detail).toContain('installs only from package-lock.json or npm-shrinkwrap.json');

    fs.writeFileSync(path.join(repo, 'package-lock.json'), '{"lockfileVersion":3}\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'lockfile');
    expect(await check(projectId)).toMatchObject({ ok: true });
  });
});
