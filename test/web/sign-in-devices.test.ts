import { randomBytes } from 'node:crypto';
import { sign } from '@fastify/cookie';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';
import { DashboardClient, setCheapAdminPassword } from '../support/web-session.js';

const PASSWORD = 'device cookie test password';
const DEVICE_COOKIE = 'agentjobs_device';
const PROXY = '10.0.0.1';

describe.each(testDialects())('dashboard sign-in holds per device and address (%s)', (dialect) => {
  let t: TestApp;
  let nextAddress = 1;
  // Each test gets addresses of its own: holds outlive a test, as they outlive a restart.
  const address = () => `192.0.2.${nextAddress++}`;

  beforeAll(async () => {
    t = await startTestApp(dialect, { AGENTJOBS_TRUST_PROXY: PROXY });
    await setCheapAdminPassword(t.store, PASSWORD);
  });
  afterAll(() => t.close());
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A browser that signed in once and has since lost its session: all it keeps is its device cookie. */
  async function knownDevice(at: string): Promise<{ browser: DashboardClient; device: string }> {
    const first = new DashboardClient(t.app, at);
    expect((await first.signIn(PASSWORD)).status).toBe(303);
    const device = first.cookie(DEVICE_COOKIE);
    if (!device) throw new Error('no device cookie after signing in');
    const browser = new DashboardClient(t.app, at);
    browser.setCookie(DEVICE_COOKIE, device);
    return { browser, device };
  }

  async function wrongPasswords(at: string, count: number): Promise<number[]> {
    const stranger = new DashboardClient(t.app, at);
    await stranger.get('/ui/sign-in');
    const statuses: number[] = [];
    for (let i = 0; i < count; i++)
      statuses.push((await stranger.post('/ui/sign-in', { password: `guess ${i}` })).status);
    return statuses;
  }

  it("lets a known device in with the right password after a stranger's ten wrong posts from its address", async () => {
    // Behind a proxy that is not trusted, the admin and the stranger share one address.
    const shared = address();
    const { browser } = await knownDevice(shared);
    const statuses = await wrongPasswords(shared, 10);
    expect(statuses.slice(0, 5)).toEqual(Array(5).fill(401));
    expect(statuses.slice(5)).toEqual(Array(5).fill(429));

    const signedIn = await browser.signIn(PASSWORD);
    expect(signedIn.status).toBe(303);
    expect(browser.cookie('agentjobs_session')).toBeDefined();
    // A browser without the cookie is the stranger's equal there: it waits.
    const unknown = new DashboardClient(t.app, shared);
    expect((await unknown.signIn(PASSWORD)).status).toBe(429);
  });

  it('holds a stranger back with waits that double up to 15 minutes, and forgets after an hour', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const stranger = new DashboardClient(t.app, address());
    await stranger.get('/ui/sign-in');
    const guess = () => stranger.post('/ui/sign-in', { password: 'a guess' });
    for (let i = 0; i < 5; i++) expect((await guess()).status).toBe(401);
    const waits: number[] = [];
    for (let i = 0; i < 9; i++) {
      const held = await guess();
      expect(held.status).toBe(429);
      expect(held.body).toContain('Too many wrong passwords from your address');
      const wait = Number(held.headers['retry-after']);
      waits.push(wait);
      // Trying again while held neither passes nor lengthens the wait.
      vi.advanceTimersByTime((wait - 1) * 1000);
      const early = await guess();
      expect(early.status).toBe(429);
      expect(early.headers['retry-after']).toBe('1');
      vi.advanceTimersByTime(1000);
      expect((await guess()).status).toBe(401);
    }
    expect(waits).toEqual([10, 20, 40, 80, 160, 320, 640, 900, 900]);
    // An hour after its last hold ended, the address starts afresh.
    vi.advanceTimersByTime((900 + 3600) * 1000);
    for (let i = 0; i < 5; i++) expect((await guess()).status).toBe(401);
    expect((await guess()).status).toBe(429);
  });

  it('counts a forged or tampered device cookie as no device at all', async () => {
    const shared = address();
    const { browser, device } = await knownDevice(shared);
    await wrongPasswords(shared, 10);
    const dot = device.lastIndexOf('.');
    const [id, signature] = [device.slice(0, dot), decodeURIComponent(device.slice(dot + 1))];
    const flip = (text: string, at: number) =>
      text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
    const forgeries = {
      'another id under the same signature': `${flip(id, 0)}.${signature}`,
      'a changed signature': `${id}.${flip(signature, 3)}`,
      'the id alone': id,
      'an id signed with another key': sign(randomBytes(16).toString('base64url'), randomBytes(32)),
    };
    for (const [what, forged] of Object.entries(forgeries)) {
      const forger = new DashboardClient(t.app, shared);
      forger.setCookie(DEVICE_COOKIE, encodeURIComponent(forged));
      const response = await forger.signIn(PASSWORD);
      expect(response.status, what).toBe(429);
      expect(response.body, what).toContain('from your address');
    }
    expect((await browser.signIn(PASSWORD)).status).toBe(303);
  });

  it('holds a known device only by its own failures', async () => {
    const at = address();
    const { browser } = await knownDevice(at);
    await browser.get('/ui/sign-in');
    for (let i = 0; i < 5; i++)
      expect((await browser.post('/ui/sign-in', { password: `typo ${i}` })).status).toBe(401);
    const held = await browser.post('/ui/sign-in', { password: PASSWORD });
    expect(held.status).toBe(429);
    expect(held.body).toContain('from this browser');
    // The device's failures are not its address's.
    expect((await new DashboardClient(t.app, at).signIn(PASSWORD)).status).toBe(303);
  });

  it('gives concurrent posts of one client one turn each: five answers, the rest held', async () => {
    const at = address();
    const stranger = new DashboardClient(t.app, at);
    await stranger.get('/ui/sign-in');
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => stranger.post('/ui/sign-in', { password: `guess ${i}` })),
    );
    const counts = { 401: 0, 429: 0 };
    for (const { status } of statuses) counts[status as 401 | 429]++;
    expect(counts).toEqual({ 401: 5, 429: 15 });
  });

  it('sets the device cookie HttpOnly, SameSite=Strict, for a year, for the sign-in form only, Secure over https', async () => {
    const headers = { 'x-forwarded-proto': 'https', 'x-forwarded-for': address() };
    const form = await t.app.inject({ method: 'GET', url: '/ui/sign-in', remoteAddress: PROXY, headers });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
    const cookie = [form.headers['set-cookie'] ?? []].flat().map((line) => line.split(';')[0]);
    const signedIn = await t.app.inject({
      method: 'POST',
      url: '/ui/sign-in',
      remoteAddress: PROXY,
      headers: { ...headers, cookie: cookie.join('; '), 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrf, password: PASSWORD }).toString(),
    });
    expect(signedIn.statusCode).toBe(303);
    const device = [signedIn.headers['set-cookie'] ?? []]
      .flat()
      .find((line) => line.startsWith(`${DEVICE_COOKIE}=`));
    expect(device).toBeDefined();
    const attributes = device?.split(/;\s*/).slice(1) ?? [];
    expect(attributes).toEqual(
      expect.arrayContaining([
        'HttpOnly',
        'SameSite=Strict',
        'Secure',
        'Path=/ui/sign-in',
        'Max-Age=31536000',
      ]),
    );
  });
});
