import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureMirror } from '../../src/git/mirror.js';
import { pushBranch } from '../../src/git/push.js';
import { askpassEnv, GitError } from '../../src/git/run.js';
import { type GitHttpServer, startGitHttpServer } from '../support/git-http.js';
import { git, makeRepo, tempDir } from '../support/worker.js';

const TOKEN = 'ghs_test-token-0123456789abcdef';

// git over HTTP with the token only in git's environment (docs/architecture.md#secrets).
describe('git over smart HTTP with a token', () => {
  let dir: string;
  let server: GitHttpServer;
  let bare: string;
  let baseSha: string;
  let url: string;

  beforeAll(async () => {
    dir = tempDir('git-http');
    const made = makeRepo(dir);
    baseSha = made.baseSha;
    bare = path.join(dir, 'served', 'org', 'repo.git');
    fs.mkdirSync(path.dirname(bare), { recursive: true });
    git(dir, 'clone', '-q', '--bare', made.repo, bare);
    server = await startGitHttpServer({ root: path.join(dir, 'served'), token: TOKEN });
    url = `${server.url}/org/repo.git`;
  });
  afterAll(async () => {
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('mirrors and pushes with askpass, and the token is nowhere on disk or in an argument', async () => {
    const trace = path.join(dir, 'trace.log');
    // GIT_TRACE logs every command git runs, with its arguments, in this process and its helpers.
    const env = {
      ...askpassEnv(path.join(dir, 'askpass'), { username: 'x-access-token', token: TOKEN }),
      GIT_TRACE: trace,
    };
    const mirrorsDir = path.join(dir, 'mirrors');
    const mirror = await ensureMirror({ mirrorsDir, projectId: 'p1', repository: url, env });
    expect(git(mirror, 'rev-parse', 'main')).toBe(baseSha);

    const commit = execFileSync(
      'git',
      ['-C', mirror, 'commit-tree', 'main^{tree}', '-p', 'main', '-m', 'job'],
      {
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 'b',
          GIT_AUTHOR_EMAIL: 'b@e',
          GIT_COMMITTER_NAME: 'b',
          GIT_COMMITTER_EMAIL: 'b@e',
        },
      },
    )
      .toString()
      .trim();
    git(mirror, 'update-ref', 'refs/heads/agentjobs/one', commit);
    await pushBranch({ mirrorPath: mirror, branch: 'agentjobs/one', env });
    expect(git(bare, 'rev-parse', 'agentjobs/one')).toBe(commit);
    // A second fetch works too (the mirror existed already).
    await ensureMirror({ mirrorsDir, projectId: 'p1', repository: url, env });

    // git authenticated as the askpass user, after the server asked it to.
    expect(server.requests.some((r) => r.status === 401)).toBe(true);
    expect(
      server.requests.some((r) => r.user === 'x-access-token' && r.path.endsWith('git-receive-pack')),
    ).toBe(true);

    expect(fs.readFileSync(path.join(mirror, 'config'), 'utf8')).not.toContain(TOKEN);
    const traced = fs.readFileSync(trace, 'utf8');
    expect(traced).toContain('git-remote-http');
    expect(traced).not.toContain(TOKEN);
    for (const file of fs.readdirSync(path.join(dir, 'askpass')))
      expect(fs.readFileSync(path.join(dir, 'askpass', file), 'utf8')).not.toContain(TOKEN);
  });

  it('fails cleanly with a wrong token, and says nothing of it', async () => {
    const wrong = 'ghs_wrong-token-9876543210';
    const env = askpassEnv(path.join(dir, 'askpass'), { username: 'x-access-token', token: wrong });
    const error = await ensureMirror({
      mirrorsDir: path.join(dir, 'mirrors-wrong'),
      projectId: 'p2',
      repository: url,
      env,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).message).toMatch(/Authentication failed|401/);
    expect((error as GitError).message).not.toContain(wrong);
    expect((error as GitError).stderr).not.toContain(wrong);
    // No half-made mirror is left behind.
    expect(fs.existsSync(path.join(dir, 'mirrors-wrong', 'p2.git'))).toBe(false);
  });

  it('sends the user name of the host, and a server that wants another refuses it', async () => {
    // As GitLab does with `oauth2`: the user name is part of what the host checks.
    const strict = await startGitHttpServer({
      root: path.join(dir, 'served'),
      token: TOKEN,
      username: 'oauth2',
    });
    try {
      const repository = `${strict.url}/org/repo.git`;
      const mirrorsDir = path.join(dir, 'mirrors-strict');
      const wrongUser = askpassEnv(path.join(dir, 'askpass'), { username: 'x-access-token', token: TOKEN });
      await expect(
        ensureMirror({ mirrorsDir, projectId: 'p4', repository, env: wrongUser }),
      ).rejects.toBeInstanceOf(GitError);
      const rightUser = askpassEnv(path.join(dir, 'askpass'), { username: 'oauth2', token: TOKEN });
      const mirror = await ensureMirror({ mirrorsDir, projectId: 'p4', repository, env: rightUser });
      expect(git(mirror, 'rev-parse', 'main')).toBe(baseSha);
      expect(new Set(strict.requests.map((request) => request.user))).toEqual(new Set([null, 'oauth2']));
    } finally {
      await strict.close();
    }
  });

  it('refuses without any credentials', async () => {
    const error = await ensureMirror({
      mirrorsDir: path.join(dir, 'mirrors-none'),
      projectId: 'p3',
      repository: url,
      env: {},
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitError);
  });
});
