import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/domain/keys.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';
import { committedRepo } from '../support/e2e.js';
import { DashboardClient } from '../support/web-session.js';

const PASSWORD = 'correct horse battery staple';

// Every folder the tests make lives under one, removed when the file ends.
const scratch = mkdtempSync(join(tmpdir(), 'agentjobs-ui-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const gitRepository = (): string => committedRepo(mkdtempSync(join(scratch, 'repo-')));

describe.each(testDialects())('dashboard over HTTP on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect, { AGENTJOBS_ADMIN_PASSWORD: PASSWORD, AGENTJOBS_SESSION_HOURS: '1' });
    const { ensureAdminPassword } = await import('../../src/domain/password.js');
    await ensureAdminPassword(t.store.admin, PASSWORD);
  });
  afterAll(() => t.close());

  it('sends a signed-out visitor to the sign-in page, and back after signing in', async () => {
    const browser = new DashboardClient(t.app);
    const first = await browser.get(`/ui/projects/${t.project.id}/keys`);
    expect(first.status).toBe(303);
    expect(first.location).toBe(
      `/ui/sign-in?next=${encodeURIComponent(`/ui/projects/${t.project.id}/keys`)}`,
    );
    const form = await browser.get(first.location ?? '');
    expect(form.status).toBe(200);
    expect(form.body).toContain('<label for="password">Admin password</label>');
    const signedIn = await browser.post('/ui/sign-in', {
      password: PASSWORD,
      next: `/ui/projects/${t.project.id}/keys`,
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe(`/ui/projects/${t.project.id}/keys`);
    const session = browser.cookie('agentjobs_session');
    expect(session).toMatch(/^[\w-]{43}$/);
    const cookieLine = [signedIn.headers['set-cookie']]
      .flat()
      .find((c) => String(c).startsWith('agentjobs_session='));
    expect(cookieLine).toMatch(/HttpOnly/);
    expect(cookieLine).toMatch(/SameSite=Lax/);
    expect(cookieLine).toMatch(/Path=\/ui/);
    const keys = await browser.get(`/ui/projects/${t.project.id}/keys`);
    expect(keys.status).toBe(200);
    expect(keys.body).toContain('Create a key');
  });

  it('refuses a wrong password with 401 and no session', async () => {
    const browser = new DashboardClient(t.app);
    const response = await browser.signIn('not the password');
    expect(response.status).toBe(401);
    expect(response.body).toContain('That password is not right.');
    expect(browser.cookie('agentjobs_session')).toBeUndefined();
    expect(t.logs.join('\n')).not.toContain('not the password');
  });

  it('never sends an open redirect after sign-in', async () => {
    const browser = new DashboardClient(t.app);
    await browser.get('/ui/sign-in');
    const response = await browser.post('/ui/sign-in', { password: PASSWORD, next: '//evil.example/ui' });
    expect(response.location).toBe('/ui/projects');
  });

  it('ends an expired session with a notice', async () => {
    const browser = new DashboardClient(t.app);
    await browser.signIn(PASSWORD);
    const token = browser.cookie('agentjobs_session') ?? '';
    await t.store.db.kysely
      .updateTable('admin_sessions')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', hashKey(token))
      .execute();
    const response = await browser.get('/ui/projects');
    expect(response.status).toBe(303);
    expect(response.location).toBe('/ui/sign-in?next=%2Fui%2Fprojects&expired=1');
    expect(browser.cookie('agentjobs_session')).toBeUndefined();
    expect((await browser.get(response.location ?? '')).body).toContain('Your session expired');
    const rows = await t.store.db.kysely
      .selectFrom('admin_sessions')
      .select('id')
      .where('id', '=', hashKey(token))
      .execute();
    expect(rows).toEqual([]);
  });

  it('refuses a form posted without its CSRF token, and changes nothing', async () => {
    const browser = new DashboardClient(t.app);
    await browser.signIn(PASSWORD);
    const before = await t.store.apiKeys.list(t.project.id);
    const forged = await browser.postWithoutToken(`/ui/projects/${t.project.id}/keys`, {
      name: 'forged',
      scopes: 'write',
      expires: 'never',
    });
    expect(forged.status).toBe(403);
    expect(forged.body).toContain('This form has expired');
    const wrong = await browser.post(`/ui/projects/${t.project.id}/keys`, {
      _csrf: 'x'.repeat(40),
      name: 'forged',
      scopes: 'write',
      expires: 'never',
    });
    expect(wrong.status).toBe(403);
    expect(await t.store.apiKeys.list(t.project.id)).toEqual(before);
  });

  it('refuses a token from another session', async () => {
    const alice = new DashboardClient(t.app);
    const mallory = new DashboardClient(t.app);
    await alice.signIn(PASSWORD);
    await mallory.signIn(PASSWORD);
    await mallory.get(`/ui/projects/${t.project.id}/keys`);
    await alice.get(`/ui/projects/${t.project.id}/keys`);
    // Even with Mallory's CSRF secret cookie (cookie tossing), her token is bound to her session.
    alice.setCookie('agentjobs_csrf', mallory.cookie('agentjobs_csrf') ?? '');
    const response = await alice.post(`/ui/projects/${t.project.id}/keys`, {
      _csrf: mallory.csrf,
      name: 'cross',
      scopes: 'read',
      expires: '7',
    });
    expect(response.status).toBe(403);
  });

  it('sends a strict Content-Security-Policy and no inline script or style', async () => {
    const browser = new DashboardClient(t.app);
    await browser.signIn(PASSWORD);
    const response = await browser.get(`/ui/projects/${t.project.id}/jobs`);
    const csp = String(response.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(response.headers['x-frame-options']).toBeDefined();
    expect(response.body).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(response.body).not.toMatch(/<style|style="/);
    const script = /<script src="([^"]+)"/.exec(response.body)?.[1] ?? '';
    const asset = await t.app.inject({ url: script });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toContain('text/javascript');
    expect(asset.headers['cache-control']).toContain('immutable');
    // The JSON API keeps its own headers: no CSP there.
    const api = await t.app.inject({ url: '/healthz' });
    expect(api.headers['content-security-policy']).toBeUndefined();
  });

  it('creates a project, shows the key once, and lists it without the key afterwards', async () => {
    const browser = new DashboardClient(t.app);
    await browser.signIn(PASSWORD);
    await browser.get('/ui/projects/new');
    const unnamed = await browser.post('/ui/projects', {
      name: '',
      host: 'local',
      repository: '/srv',
      publish: 'pull_request',
    });
    expect(unnamed.status).toBe(400);
    expect(unnamed.body).toContain('is required');
    const relative = await browser.post('/ui/projects', {
      name: 'x',
      host: 'local',
      repository: 'relative/path',
    });
    expect(relative.status).toBe(400);
    expect(relative.body).toContain('must be an absolute path on the server');
    expect(relative.body).toContain('value="relative/path"');

    const repository = gitRepository();
    const created = await browser.post('/ui/projects', {
      name: 'Handbook <b>',
      host: 'local',
      repository,
      publish: 'pull_request',
      baseBranch: '',
      allowedModels: '',
      defaultModel: '',
    });
    expect(created.status).toBe(303);
    const projectId = /\/ui\/projects\/([^/]+)\/keys/.exec(created.location ?? '')?.[1] ?? '';
    const project = await t.store.projects.get(projectId);
    expect(project).toMatchObject({ name: 'Handbook <b>', repository, baseBranch: 'main', host: 'local' });
    const keysPage = await browser.get(created.location ?? '');
    expect(keysPage.body).toContain('Handbook &lt;b&gt;');
    expect(keysPage.body).not.toContain('Handbook <b>');

    const made = await browser.post(`/ui/projects/${projectId}/keys`, {
      name: 'docs bot',
      scopes: ['read', 'write'],
      expires: '7',
      ips: '',
    });
    expect(made.status).toBe(303);
    const shown = await browser.get(made.location ?? '');
    const key = /<code id="new-key">(ajs_[^<]+)<\/code>/.exec(shown.body)?.[1] ?? '';
    expect(key).toMatch(/^ajs_/);
    expect(shown.body).toContain('It will not be shown again');
    expect(shown.headers['cache-control']).toBe('no-store');
    // Once: the next visit (or a reload) shows no key, and no second key was made.
    expect((await browser.get(made.location ?? '')).body).not.toContain(key);
    const [record] = await t.store.apiKeys.list(projectId);
    expect(record).toMatchObject({ name: 'docs bot', scopes: ['read', 'write'] });
    expect(Date.parse(record?.expiresAt ?? '') - Date.now()).toBeGreaterThan(6.9 * 86_400_000);

    const api = await t.app.inject({
      url: `/v2/agent/${projectId}/job`,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(api.statusCode).toBe(200);
    const list = await browser.get(`/ui/projects/${projectId}/keys`);
    expect(list.body).not.toContain(key);
    expect(list.body).toContain('expires soon');
    expect(t.logs.join('\n')).not.toContain(key);

    const revoked = await browser.post(`/ui/projects/${projectId}/keys/${record?.id}/revoke`);
    expect(revoked.status).toBe(303);
    const refused = await t.app.inject({
      url: `/v2/agent/${projectId}/job`,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(refused.statusCode).toBe(401);
    expect((await browser.get(revoked.location ?? '')).body).toContain('badge revoked');
  });

  it('refuses a repository without commits or without the base branch, in the field that is wrong', async () => {
    const browser = new DashboardClient(t.app);
    await browser.signIn(PASSWORD);
    await browser.get('/ui/projects/new');
    const empty = mkdtempSync(join(scratch, 'empty-'));
    execFileSync('git', ['init', '--quiet', '--initial-branch=main', empty]);
    const form = { name: 'Empty', host: 'local', publish: 'pull_request', baseBranch: '' };
    const before = (await t.store.projects.list()).length;
    const noCommits = await browser.post('/ui/projects', { ...form, repository: empty });
    expect(noCommits.status).toBe(400);
    expect(noCommits.body).toContain(
      `${empty} has no commits yet: make a first commit (git commit) and try again.`,
    );
    const noBranch = await browser.post('/ui/projects', {
      ...form,
      repository: gitRepository(),
      baseBranch: 'live',
    });
    expect(noBranch.status).toBe(400);
    expect(noBranch.body).toMatch(/has no branch &quot;live&quot; \(its branches: main\)/);
    expect(await t.store.projects.list()).toHaveLength(before);

    const settings = await browser.get(`/ui/projects/${t.project.id}/settings`);
    expect(settings.status).toBe(200);
    const repository = gitRepository();
    const moved = await browser.post(`/ui/projects/${t.project.id}/settings`, {
      name: t.project.name,
      host: 'local',
      repository,
      publish: 'pull_request',
      baseBranch: 'no-such-branch',
    });
    expect(moved.status).toBe(400);
    expect(moved.body).toContain('has no branch &quot;no-such-branch&quot;');
    expect((await t.store.projects.get(t.project.id))?.baseBranch).toBe(t.project.baseBranch);
  });

  it('refuses a bad IP allowlist entry and keeps what was typed', async () => {
    const browser = new DashboardClient(t.app);
    await browser.signIn(PASSWORD);
    await browser.get(`/ui/projects/${t.project.id}/keys`);
    const response = await browser.post(`/ui/projects/${t.project.id}/keys`, {
      name: 'office',
      scopes: 'read',
      expires: '30',
      ips: '10.0.0.0/8\nnot-an-ip',
    });
    expect(response.status).toBe(400);
    expect(response.body).toContain('not-an-ip');
    expect(response.body).toContain('value="office"');
  });

  it('stores a code-host token write-only and never shows it again', async () => {
    const browser = new DashboardClient(t.app);
    await browser.signIn(PASSWORD);
    await browser.get('/ui/projects/new');
    const token = 'ghp_dashboardSecretToken1234567890abcdef';
    const created = await browser.post('/ui/projects', {
      name: 'Site',
      host: 'github',
      repository: 'https://github.com/acme/site.git',
      publish: 'pull_request',
      baseBranch: 'main',
      token,
    });
    expect(created.status).toBe(303);
    const projectId = /\/ui\/projects\/([^/]+)\//.exec(created.location ?? '')?.[1] ?? '';
    expect((await t.store.projects.get(projectId))?.hasHostToken).toBe(true);
    const settings = await browser.get(`/ui/projects/${projectId}/settings`);
    expect(settings.body).toContain('A token is stored (encrypted)');
    expect(settings.body).not.toContain(token);
    const row = await t.store.db.kysely
      .selectFrom('projects')
      .selectAll()
      .where('id', '=', projectId)
      .executeTakeFirst();
    expect(JSON.stringify(row)).not.toContain(token);
    expect(t.logs.join('\n')).not.toContain(token);
  });

  it('limits sign-in attempts per address', async () => {
    const browser = new DashboardClient(t.app);
    await browser.get('/ui/sign-in');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await browser.post('/ui/sign-in', { password: `guess ${i}` })).status);
    expect(statuses).toEqual([...Array(5).fill(401), 429]);
    // Once held, even the right password waits.
    const right = await browser.post('/ui/sign-in', { password: PASSWORD });
    expect(right.status).toBe(429);
    expect(right.body).toContain('Too many wrong passwords');
    expect(browser.cookie('agentjobs_session')).toBeUndefined();
  });
});
