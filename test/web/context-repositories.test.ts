/**
 * The "Context repositories" section of a project's settings page, over real HTTP on both
 * databases: listed, added (a remote one's token sealed, never shown), refused with the error next
 * to its field and nothing stored, removed; every form carries the CSRF token, and a post without it
 * changes nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAdminPassword } from '../../src/domain/password.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';
import { makeRepo, tempDir } from '../support/worker.js';

const PASSWORD = 'context repositories password';
const TOKEN = 'ctx-dashboard-token-3e8a61d0f2b94c57';

/** A browser over real HTTP: it keeps cookies and the last page's CSRF token. */
function browserFor(base: string) {
  const cookies = new Map<string, string>();
  let csrf = '';
  const send = async (method: 'GET' | 'POST', pathname: string, form?: Record<string, string>) => {
    const response = await fetch(`${base}${pathname}`, {
      method,
      redirect: 'manual',
      headers: {
        cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const [name = '', ...value] = pair.split('=');
      cookies.set(name.trim(), value.join('='));
    }
    const body = await response.text();
    csrf = /name="_csrf" value="([^"]+)"/.exec(body)?.[1] ?? csrf;
    return { status: response.status, body, location: response.headers.get('location') };
  };
  return {
    get: (pathname: string) => send('GET', pathname),
    post: (pathname: string, form: Record<string, string>, withToken = true) =>
      send('POST', pathname, withToken ? { _csrf: csrf, ...form } : form),
  };
}

describe.each(testDialects())('context repositories on the settings page on %s', (dialect) => {
  let t: TestApp;
  let dir: string;
  let base: string;
  beforeAll(async () => {
    dir = tempDir('context-dashboard');
    t = await startTestApp(dialect, { AGENTJOBS_DATA_DIR: path.join(dir, 'data') });
    await ensureAdminPassword(t.store.admin, PASSWORD);
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists, adds, refuses, and removes', async () => {
    const browser = browserFor(base);
    await browser.get('/ui/sign-in');
    expect((await browser.post('/ui/sign-in', { password: PASSWORD })).status).toBe(303);
    const settings = `/ui/projects/${t.project.id}/settings`;
    const action = `/ui/projects/${t.project.id}/context`;
    const page = await browser.get(settings);
    expect(page.body).toContain('<h2>Context repositories</h2>');
    expect(page.body).toContain('None yet.');

    const code = makeRepo(dir).repo;
    const added = await browser.post(action, {
      name: 'code',
      repository: code,
      ref: '',
      host: '',
      token: '',
    });
    expect(added.status).toBe(303);
    const remote = await browser.post(action, {
      name: 'api',
      repository: 'https://gitlab.com/acme/api.git',
      ref: 'main',
      host: '',
      token: TOKEN,
    });
    expect(remote.status).toBe(303);
    expect(await t.store.contextRepositories.list(t.project.id)).toMatchObject([
      { name: 'api', host: 'gitlab', ref: 'main', hasToken: true },
      { name: 'code', repository: code, host: 'local', ref: null, hasToken: false },
    ]);
    const listed = await browser.get(settings);
    expect(listed.body).toMatch(
      /<td>api<\/td><td>https:\/\/gitlab\.com\/acme\/api\.git<\/td><td>main<\/td><td>gitlab<\/td><td>stored<\/td>/,
    );
    expect(listed.body).toContain(`<td>code</td><td>${code}</td><td>default branch</td><td>local</td>`);
    expect(listed.body).not.toContain(TOKEN);

    // Refusals: shown next to the field, the form kept (never the token), nothing stored.
    const plain = path.join(dir, 'plain');
    fs.mkdirSync(plain);
    const notGit = await browser.post(action, { name: 'plain', repository: plain, token: '' });
    expect(notGit.status).toBe(400);
    expect(notGit.body).toMatch(
      /id="c-repository" name="repository" value="[^"]*plain"[^>]*aria-invalid="true"/,
    );
    expect(notGit.body).toContain(`${plain} is not a git repository`);
    const duplicate = await browser.post(action, { name: 'code', repository: code });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body).toContain('The project already has a context repository named &quot;code&quot;.');
    const localToken = await browser.post(action, { name: 'again', repository: code, token: TOKEN });
    expect(localToken.status).toBe(400);
    expect(localToken.body).toContain('A local repository takes no token.');
    expect(localToken.body).not.toContain(TOKEN);
    const badName = await browser.post(action, { name: '../x', repository: code });
    expect(badName.status).toBe(400);
    expect(badName.body).toMatch(/id="c-name"[^>]*aria-invalid="true"/);
    const unknownHost = await browser.post(action, {
      name: 'far',
      repository: 'https://git.example/acme/far.git',
    });
    expect(unknownHost.status).toBe(400);
    expect(unknownHost.body).toContain('Name the code host of this repository');
    expect(await t.store.contextRepositories.list(t.project.id)).toHaveLength(2);

    // A post without the CSRF token changes nothing.
    const forged = await browser.post(`${action}/code/delete`, {}, false);
    expect(forged.status).toBe(403);
    expect(await t.store.contextRepositories.list(t.project.id)).toHaveLength(2);

    await browser.get(settings);
    const removed = await browser.post(`${action}/code/delete`, {});
    expect(removed.status).toBe(303);
    expect(
      (await t.store.contextRepositories.list(t.project.id)).map((repository) => repository.name),
    ).toEqual(['api']);
    expect((await browser.get(settings)).body).not.toContain(`<td>code</td>`);
  });
});
