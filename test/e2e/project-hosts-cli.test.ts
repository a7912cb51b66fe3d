import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/processes.js';

// `project create` for the remote hosts: what it refuses before anything is stored.
describe('agentjobs project create --host gitlab|gitea', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-project-hosts-'));
  const env = { AGENTJOBS_DATA_DIR: dir, DATABASE_URL: `sqlite:${path.join(dir, 'db.sqlite')}` };
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  // With --json a refusal is a JSON object on standard output.
  const said = (result: { stdout: string; stderr: string }) => result.stdout + result.stderr;
  const create = (args: string[], extra: Record<string, string> = {}) =>
    runCli(['project', 'create', '--name', 'Docs', ...args, '--json'], { ...env, ...extra });

  it('takes the token from GITLAB_TOKEN and the instance from --api-url', async () => {
    const created = await create(
      [
        '--host',
        'gitlab',
        '--repo',
        'https://git.example.com/team/docs.git',
        '--api-url',
        'https://git.example.com/',
      ],
      { GITLAB_TOKEN: 'glpat-cli-test-token' },
    );
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({
      host: 'gitlab',
      hasHostToken: true,
      hostSettings: { apiUrl: 'https://git.example.com' },
    });
    expect(created.stdout + created.stderr).not.toContain('glpat-cli-test-token');
  });

  it('asks for a token by the host’s variable', async () => {
    const missing = await create(['--host', 'gitea', '--repo', 'https://gitea.example.com/org/docs'], {
      GITEA_TOKEN: '',
    });
    expect(missing.code).not.toBe(0);
    expect(said(missing)).toMatch(/set GITEA_TOKEN/);
  });

  it('refuses GitHub App settings on other hosts, an API URL for local, and an unusable repository', async () => {
    const app = await create(['--host', 'gitlab', '--repo', 'https://gitlab.com/a/b', '--app-id', '1'], {
      GITLAB_TOKEN: 'x',
    });
    expect(said(app)).toMatch(
      /--app-id: A GitHub App \(app id and installation id\) is for the github host only/,
    );
    const local = await create(['--repo', dir, '--api-url', 'https://x.example.com']);
    expect(said(local)).toMatch(/--api-url: An API URL is for the github, gitlab or gitea host/);
    const lonely = await create(['--host', 'gitea', '--repo', 'https://gitea.example.com/lonely'], {
      GITEA_TOKEN: 'x',
    });
    expect(said(lonely)).toMatch(/OWNER\/REPO/);
    for (const result of [app, local, lonely]) expect(result.code).not.toBe(0);
  });
});
