import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import { ensureAdminPassword } from '../../src/domain/password.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { DashboardClient } from '../support/web-session.js';

const PASSWORD = 'security test password';

/** Every route of the app with its methods, read from Fastify's own route tree. */
function routesOf(tree: string): { path: string; methods: string[] }[] {
  const stack: string[] = [];
  const routes: { path: string; methods: string[] }[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+) \(([^)]+)\)/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? '').length / 4;
    stack.length = depth;
    stack.push(match[2] ?? '');
    routes.push({ path: stack.join(''), methods: (match[3] ?? '').split(', ') });
  }
  return routes;
}

describe('dashboard without a session (sqlite)', () => {
  let t: TestApp;
  let job: Job;
  let keyId: string;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await ensureAdminPassword(t.store.admin, PASSWORD);
    job = await t.makeJob('A job');
    keyId = (await t.store.apiKeys.list(t.project.id))[0]?.id ?? '';
  });
  afterAll(() => t.close());

  it('lets no /ui route but sign-in and the assets answer, and changes nothing', async () => {
    const routes = routesOf(t.app.printRoutes({ commonPrefix: false })).filter(
      (r) => r.path.startsWith('/ui') && !r.path.includes('sign-in') && !r.path.includes('assets'),
    );
    // Read from the tree, so a new page is covered the day it is added.
    expect(routes.length).toBeGreaterThanOrEqual(20);
    const fill = (path: string) =>
      path
        .replace(':projectId', t.project.id)
        .replace(':jobId', job.id)
        .replace(':keyId', keyId)
        .replace(':number', '1');
    for (const route of routes)
      for (const method of route.methods.filter((m) => m === 'GET' || m === 'POST')) {
        const url = fill(route.path);
        const response = await t.app.inject({
          method: method as 'GET' | 'POST',
          url,
          ...(method === 'POST'
            ? { payload: 'x=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } }
            : {}),
        });
        if (/\/(rows|summary|stream)$/.test(url)) expect(response.statusCode, `${method} ${url}`).toBe(401);
        else {
          expect(response.statusCode, `${method} ${url}`).toBe(303);
          expect(response.headers.location, url).toMatch(/^\/ui\/sign-in/);
        }
      }
    expect((await t.store.jobs.get(t.project.id, job.id))?.status).toBe('active');
    expect((await t.store.apiKeys.list(t.project.id))[0]?.revokedAt).toBeNull();
  });

  it('escapes what the agent and the code host wrote, and links only to http(s)', async () => {
    await t.store.events.append(job.id, 'message', {
      role: 'assistant',
      text: '<img src=x onerror=alert(1)>',
    });
    await t.store.events.append(job.id, 'pull_request', {
      url: 'javascript:alert(document.cookie)',
      number: 1,
    });
    await t.store.events.append(job.id, 'tool_call', {
      tool: '"><script>alert(2)</script>',
      input: { a: '</li>' },
    });
    const browser = new DashboardClient(t.app);
    await browser.signIn(PASSWORD);
    const page = await browser.get(`/ui/projects/${t.project.id}/jobs/${job.id}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page.body).not.toContain('<img');
    expect(page.body).not.toContain('<script>alert');
    expect(page.body).not.toContain('href="javascript:');
    expect(page.body).toContain('href="#"');
  });

  it('shows a new key only with its own valid cookie', async () => {
    const browser = new DashboardClient(t.app);
    await browser.signIn(PASSWORD);
    const other = await startTestApp('sqlite', {}, t.database);
    try {
      // A cookie naming a key of this project with the wrong secret, and one of another project.
      browser.setCookie('agentjobs_new_key', `${keyId}.ajs_forged`);
      const forged = await browser.get(`/ui/projects/${t.project.id}/keys`);
      expect(forged.body).not.toContain('id="new-key"');
      const foreignKey = await other.makeKey();
      const foreign = (await t.store.apiKeys.list(other.project.id))[0];
      browser.setCookie('agentjobs_new_key', `${foreign?.id}.${foreignKey}`);
      const wrongProject = await browser.get(`/ui/projects/${t.project.id}/keys`);
      expect(wrongProject.body).not.toContain(foreignKey);
    } finally {
      await other.app.close();
    }
  });

  it('asks for the token again when the host, repository or API URL changes', async () => {
    const browser = new DashboardClient(t.app);
    await browser.signIn(PASSWORD);
    await browser.get('/ui/projects/new');
    const token = 'ghp_settingsEditToken0123456789abcdefABCD';
    const base = {
      name: 'Site',
      host: 'github',
      repository: 'https://github.com/acme/site.git',
      publish: 'pull_request',
      baseBranch: 'main',
      appId: '12345',
      installationId: '678',
    };
    const created = await browser.post('/ui/projects', { ...base, token });
    const projectId = /\/ui\/projects\/([^/]+)\//.exec(created.location ?? '')?.[1] ?? '';
    const settings = `/ui/projects/${projectId}/settings`;
    await browser.get(settings);

    // Same target, new base branch: the token and the App ids stay.
    expect((await browser.post(settings, { ...base, baseBranch: 'docs' })).status).toBe(303);
    let project = await t.store.projects.get(projectId);
    expect(project).toMatchObject({
      baseBranch: 'docs',
      hasHostToken: true,
      hostSettings: { appId: '12345', installationId: '678' },
    });

    // Another server: refused without the token, and nothing changes.
    await browser.get(settings);
    const moved = await browser.post(settings, { ...base, apiUrl: 'https://evil.example/api/v3' });
    expect(moved.status).toBe(400);
    expect(moved.body).toContain('Enter the token again');
    project = await t.store.projects.get(projectId);
    expect(project?.hostSettings.apiUrl).toBeUndefined();
    expect(await t.store.projects.hostToken(projectId, secretsOf())).toBe(token);
  });

  // The same box the dashboard uses.
  const secretsOf = () => t.secrets();
});

describe('sign-in limit behind a proxy (sqlite)', () => {
  it('believes X-Forwarded-For only from the listed proxy', async () => {
    const t = await startTestApp('sqlite', { AGENTJOBS_TRUST_PROXY: '10.0.0.1' });
    try {
      await ensureAdminPassword(t.store.admin, PASSWORD);
      const attempt = async (remoteAddress: string, forwardedFor: string) => {
        const form = await t.app.inject({ url: '/ui/sign-in', remoteAddress });
        const token = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
        const cookie = [form.headers['set-cookie']]
          .flat()
          .map((c) => String(c).split(';')[0])
          .join('; ');
        const response = await t.app.inject({
          method: 'POST',
          url: '/ui/sign-in',
          remoteAddress,
          headers: {
            cookie,
            'x-forwarded-for': forwardedFor,
            'content-type': 'application/x-www-form-urlencoded',
          },
          payload: new URLSearchParams({ _csrf: token, password: 'wrong guess' }).toString(),
        });
        return response.statusCode;
      };
      // A client reaching the service directly cannot reset its budget by naming new addresses.
      const direct: number[] = [];
      for (let i = 0; i < 6; i++) direct.push(await attempt('203.0.113.9', `198.51.100.${i}`));
      expect(direct).toEqual([...Array(5).fill(401), 429]);
      // Through the trusted proxy, each forwarded client has a budget of its own.
      expect(await attempt('10.0.0.1', '198.51.100.77')).toBe(401);
    } finally {
      await t.close();
    }
  });
});
