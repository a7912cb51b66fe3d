import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { DashboardClient, setCheapAdminPassword } from '../support/web-session.js';

const PASSWORD = 'sign-in test password';

describe('dashboard sign-in (sqlite)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await setCheapAdminPassword(t.store, PASSWORD);
  });
  afterAll(() => t.close());

  // Each raw form, and what a browser would send for it in a form field.
  const hostileNext = ['/ui/%0A', '/ui/%0D', '/ui/%00', '/ui/%7F', '/ui/%E2%80%A8'];

  it.each(hostileNext)(
    'answers GET /ui/sign-in?next=%s, signed out and signed in, without a 500',
    async (next) => {
      const browser = new DashboardClient(t.app);
      const signedOut = await browser.get(`/ui/sign-in?next=${next}`);
      expect(signedOut.status).toBe(200);
      expect(signedOut.body).toContain('name="next" value="/ui/projects"');
      expect((await browser.post('/ui/sign-in', { password: PASSWORD })).status).toBe(303);
      const signedIn = await browser.get(`/ui/sign-in?next=${next}`);
      expect(signedIn.status).toBe(303);
      expect(signedIn.location).toBe('/ui/projects');
    },
  );

  it.each(hostileNext)('signs in with next=%s and redirects to the projects page', async (next) => {
    const browser = new DashboardClient(t.app);
    await browser.get('/ui/sign-in');
    const response = await browser.post('/ui/sign-in', {
      password: PASSWORD,
      next: decodeURIComponent(next),
    });
    expect(response.status).toBe(303);
    expect(response.location).toBe('/ui/projects');
    expect(browser.cookie('agentjobs_session')).toBeDefined();
  });

  it('keeps a next inside the dashboard only as the browser would resolve it', async () => {
    const cases: [string, string][] = [
      ['/ui/projects/p1/keys?tab=1', '/ui/projects/p1/keys?tab=1'],
      ['/ui/../evil', '/ui/projects'],
      ['/ui/%2e%2e//evil.example', '/ui/projects'],
      ['/ui\\\\evil.example', '/ui/projects'],
      ['//evil.example/ui', '/ui/projects'],
      ['/ui/sign-out', '/ui/projects'],
      ['/ui/a b', '/ui/projects'],
    ];
    for (const [next, expected] of cases) {
      const browser = new DashboardClient(t.app);
      await browser.get('/ui/sign-in');
      const response = await browser.post('/ui/sign-in', { password: PASSWORD, next });
      expect(response.location, next).toBe(expected);
    }
  });

  it('lets the right password in from a new address after 200 wrong ones from 40 addresses, and raises an alarm', async () => {
    const guess = async (address: number) => {
      const browser = new DashboardClient(t.app, `198.51.100.${address}`);
      await browser.get('/ui/sign-in');
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++)
        statuses.push((await browser.post('/ui/sign-in', { password: `guess ${i}` })).status);
      return statuses;
    };
    const statuses = (await Promise.all(Array.from({ length: 40 }, (_, i) => guess(i + 1)))).flat();
    expect(statuses).toEqual(Array(200).fill(401));
    // One more wrong one crosses the alarm threshold: still an answer, never a lock.
    const another = new DashboardClient(t.app, '198.51.100.200');
    await another.get('/ui/sign-in');
    expect((await another.post('/ui/sign-in', { password: 'one more guess' })).status).toBe(401);
    expect(t.logs.filter((line) => line.includes('someone may be guessing the admin password'))).toHaveLength(
      1,
    );

    const admin = new DashboardClient(t.app, '203.0.113.50');
    const signedIn = await admin.signIn(PASSWORD);
    expect(signedIn.status).toBe(303);
    expect(admin.cookie('agentjobs_session')).toBeDefined();
    // Each guesser waits after its fifth wrong password, even with the right one.
    const limited = new DashboardClient(t.app, '198.51.100.1');
    await limited.get('/ui/sign-in');
    expect((await limited.post('/ui/sign-in', { password: PASSWORD })).status).toBe(429);
  }, 120_000);
});
