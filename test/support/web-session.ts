import { randomBytes, scryptSync } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ensureAdminPassword } from '../../src/domain/password.js';
import type { Store } from '../../src/store/store.js';
import { startTestApp, type TestApp } from './app.js';
import type { TestDialect } from './db.js';
import { partsOf, useFixture } from './use-fixture.js';

export interface PageResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  location: string | undefined;
}

let nextAddress = 1;

/**
 * A minimal browser for the dashboard over `inject`: it keeps the cookies the server sets, and
 * reads the CSRF token from the last page so forms can be posted the way a browser posts them.
 */
export class DashboardClient {
  private cookies = new Map<string, string>();
  csrf = '';
  /**
   * Each client gets an address of its own (the sign-in rate limit is per address), unless a test
   * gives one.
   */
  constructor(
    private readonly app: FastifyInstance,
    private readonly remoteAddress = `127.${nextAddress++ % 250}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`,
  ) {}

  private remember(setCookie: unknown) {
    for (const line of [setCookie ?? []].flat() as string[]) {
      const [pair = '', ...attrs] = line.split(';');
      const [name = '', ...value] = pair.split('=');
      const expired = attrs.some((a) => /expires=Thu, 01 Jan 1970/i.test(a) || /max-age=0\b/i.test(a.trim()));
      if (expired) this.cookies.delete(name.trim());
      else this.cookies.set(name.trim(), value.join('='));
    }
  }

  cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  cookie(name: string) {
    return this.cookies.get(name);
  }

  setCookie(name: string, value: string) {
    this.cookies.set(name, value);
  }

  private async send(method: 'GET' | 'POST', url: string, form?: Record<string, string | string[]>) {
    const payload = form
      ? new URLSearchParams(
          Object.entries(form).flatMap(([k, v]) => [v].flat().map((one) => [k, one] as [string, string])),
        ).toString()
      : undefined;
    const response = await this.app.inject({
      method,
      url,
      remoteAddress: this.remoteAddress,
      headers: {
        cookie: this.cookieHeader(),
        ...(payload !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(payload !== undefined ? { payload } : {}),
    });
    this.remember(response.headers['set-cookie']);
    const token = /name="_csrf" value="([^"]+)"/.exec(response.body)?.[1];
    if (token) this.csrf = token;
    return {
      status: response.statusCode,
      headers: response.headers,
      body: response.body,
      location: response.headers.location as string | undefined,
    } satisfies PageResponse;
  }

  get(url: string) {
    return this.send('GET', url);
  }

  /** Posts a form with the current page's CSRF token unless `_csrf` is given. */
  post(url: string, form: Record<string, string | string[]> = {}) {
    return this.send('POST', url, { _csrf: this.csrf, ...form });
  }

  /** Posts without any token, as a forged cross-site form would. */
  postWithoutToken(url: string, form: Record<string, string> = {}) {
    return this.send('POST', url, form);
  }

  async signIn(password: string) {
    await this.get('/ui/sign-in');
    return this.post('/ui/sign-in', { password });
  }
}

/**
 * Sets the admin password with cheap scrypt parameters (the hash keeps its own), so that tests
 * making hundreds of attempts stay quick.
 */
export async function setCheapAdminPassword(store: Store, password: string): Promise<void> {
  const salt = randomBytes(16);
  const hash = scryptSync(password.normalize('NFC'), salt, 32, { N: 2 ** 10, r: 8, p: 1 });
  await store.admin.putSetting(
    'admin_password_hash',
    ['scrypt', 2 ** 10, 8, 1, salt.toString('base64url'), hash.toString('base64url')].join('$'),
  );
}

/** The admin password `signedInDashboard` sets, unless it is given one. */
export const DASHBOARD_PASSWORD = 'dashboard test password';

/**
 * A test app (`startTestApp` with `env`) with the admin password set, and a browser signed in to
 * its dashboard: what most dashboard suites start with. Close `t` in `afterAll`.
 */
export async function signedInDashboard(
  dialect: TestDialect,
  env: Record<string, string> = {},
  password = DASHBOARD_PASSWORD,
): Promise<{ t: TestApp; browser: DashboardClient }> {
  const t = await startTestApp(dialect, env);
  try {
    await ensureAdminPassword(t.store.admin, password);
    const browser = new DashboardClient(t.app);
    const signedIn = await browser.signIn(password);
    if (signedIn.status !== 303) throw new Error(`the test sign-in answered ${signedIn.status}`);
    return { t, browser };
  } catch (error) {
    await t.close();
    throw error;
  }
}

/**
 * `signedInDashboard` for the whole suite: started in its `beforeAll`, the app closed in its
 * `afterAll`. `env` may be a function, for settings known only once an earlier `beforeAll` ran.
 */
export function useSignedInDashboard(
  dialect: TestDialect,
  env: Record<string, string> | (() => Record<string, string>) = {},
): { t: TestApp; browser: DashboardClient } {
  const dashboard = useFixture(
    (values: Record<string, string>) => signedInDashboard(dialect, values),
    env,
    ({ t }) => t.close(),
  );
  return partsOf(dashboard, 't', 'browser');
}

/** The project form's fields for a local project on `repository`. */
export const localProjectForm = (repository: string) => ({
  name: 'Docs',
  host: 'local',
  repository,
  publish: 'pull_request',
});

/**
 * Creates a local project on `repository` through the dashboard's new-project form, as a person
 * does, and returns it with its settings page's address.
 */
export async function createProjectByForm(
  browser: DashboardClient,
  repository: string,
): Promise<{ projectId: string; form: ReturnType<typeof localProjectForm>; settings: string }> {
  const form = localProjectForm(repository);
  // The form's page first: it sets the CSRF token the post carries.
  await browser.get('/ui/projects/new');
  const created = await browser.post('/ui/projects', form);
  if (created.status !== 303)
    throw new Error(`creating the project answered ${created.status}: ${created.body}`);
  const projectId = /\/ui\/projects\/([^/]+)\//.exec(created.location ?? '')?.[1] ?? '';
  return { projectId, form, settings: `/ui/projects/${projectId}/settings` };
}
