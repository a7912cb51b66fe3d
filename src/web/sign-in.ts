import { createHash, randomBytes } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { adminPasswordHash, verifyPassword } from '../domain/password.js';
import type { HoldPolicy } from '../store/sign-in-holds.js';
import { html } from './html.js';
import { cookieOptions, type DashboardOptions, SESSION_COOKIE, sendPage } from './layout.js';

const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
/**
 * Wrong passwords from all addresses together per window before the log raises an alarm. This is
 * an alarm, not a lock: a global lock is one that anyone who can reach the page can set, locking
 * the admin out with wrong passwords from a handful of addresses. Refusing wrong passwords over it
 * would bound nothing either, since the answer to the right one would still differ. What bounds
 * guessing is the hold per client and scrypt's cost; this says when someone is trying.
 */
const SIGN_IN_FAILURES_ALARM = 200;

/**
 * Marks a browser that has signed in here before (OWASP's "device cookie"). Its failures are
 * counted against it alone, so failures of strangers, who cannot make one without the password
 * and the server's secret, never hold it back. Signed with a key derived from the secret key
 * (`dashboard.ts`), sent only to the sign-in form, never to another site.
 */
export const DEVICE_COOKIE = 'agentjobs_device';
const DEVICE_COOKIE_SECONDS = 365 * 24 * 60 * 60;
const DEVICE_ID = /^[\w-]{22}$/;

/** The wrong password that earns a client its first wait; each one after doubles the wait. */
const FIRST_HELD_FAILURE = 5;
const FIRST_HOLD_MS = 10_000;
const LONGEST_HOLD_MS = 15 * 60 * 1000;

/**
 * The wait each client (a known device, else an address) earns: none for its first failures, then
 * 10 seconds doubling up to 15 minutes, so one client gets a few guesses an hour. Its failures are
 * forgotten an hour after its last hold ends.
 */
export const signInHoldPolicy: HoldPolicy = {
  holdMs: (failures) =>
    failures < FIRST_HELD_FAILURE
      ? 0
      : Math.min(LONGEST_HOLD_MS, FIRST_HOLD_MS * 2 ** (failures - FIRST_HELD_FAILURE)),
  forgetMs: 60 * 60 * 1000,
};

/** The id of the device cookie the request carries, if it is one this server signed. */
function knownDevice(request: FastifyRequest): string | null {
  const cookie = request.cookies[DEVICE_COOKIE];
  if (!cookie) return null;
  const { valid, value } = request.unsignCookie(cookie);
  return valid && value !== null && DEVICE_ID.test(value) ? value : null;
}

/** A wait in words a person reads at once. */
const inWords = (ms: number) => {
  const seconds = Math.ceil(ms / 1000);
  return seconds < 120 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;
};

const signInForm = z.object({
  password: z.string().max(1000).default(''),
  next: z.string().max(2000).optional(),
});

const DEFAULT_NEXT = '/ui/projects';
/**
 * What a `next` may hold as it arrives: printable ASCII only. The dashboard builds `next` from a
 * request URL, which is percent-encoded, so a real page never needs more; a control character or
 * a raw non-ASCII one would end up in the Location header, where Node refuses it.
 */
const URL_CHARACTERS = /^[\x21-\x7E]+$/;
const BASE = 'http://agentjobs.invalid';

/**
 * Only a path of this dashboard, and not the sign-in pages: never another site (an open redirect),
 * a protocol-relative URL, or a header value with control characters. The path is judged the way
 * the browser will resolve it (dot segments, backslashes), and that resolved form is what is used.
 */
function safeNext(next: string | undefined): string {
  if (!next?.startsWith('/') || !URL_CHARACTERS.test(next)) return DEFAULT_NEXT;
  let url: URL;
  try {
    url = new URL(next, BASE);
  } catch {
    return DEFAULT_NEXT;
  }
  const { pathname } = url;
  if (
    url.origin !== BASE ||
    !/^\/ui(\/|$)/.test(pathname) ||
    pathname.startsWith('/ui/sign-') ||
    pathname.includes('//')
  ) {
    return DEFAULT_NEXT;
  }
  return `${pathname}${url.search}`;
}

export const signInPages: FastifyPluginAsync<DashboardOptions> = async (app, { config, store }) => {
  const form = (csrf: string, next: string) => html`
    <div class="center card">
      <h1 class="pad">Sign in to agentjobs</h1>
      <form class="stack" method="post" action="/ui/sign-in">
        <input type="hidden" name="_csrf" value="${csrf}">
        <input type="hidden" name="next" value="${next}">
        <div><label for="password">Admin password</label>
          <input type="password" id="password" name="password" autocomplete="current-password" required autofocus></div>
        <div class="actions"><button class="primary" type="submit">Sign in</button></div>
        <p class="hint">The password is AGENTJOBS_ADMIN_PASSWORD, or the one printed when the server first started. Lost it? Run <code>agentjobs admin password</code> on the server.</p>
      </form>
    </div>`;

  app.get<{ Querystring: { next?: string; expired?: string; signedOut?: string } }>(
    '/sign-in',
    { schema: { hide: true } },
    async (request, reply) => {
      if (request.adminSession) return reply.redirect(safeNext(request.query.next), 303);
      const flash = request.query.expired
        ? ({ kind: 'warn', text: 'Your session expired. Sign in again.' } as const)
        : request.query.signedOut
          ? ({ kind: 'ok', text: 'You are signed out.' } as const)
          : null;
      return sendPage(request, reply, 'Sign in', (csrf) => form(csrf, safeNext(request.query.next)), {
        flash,
      });
    },
  );

  app.post('/sign-in', { schema: { hide: true } }, async (request, reply) => {
    const device = knownDevice(request);
    // Stored by digest: the table holds no cookie value.
    const client = device
      ? `sign-in:device:${createHash('sha256').update(device).digest('base64url')}`
      : `sign-in:address:${request.ip}`;
    const turn = await store.signInHolds.takeTurn(client, signInHoldPolicy);
    if (!turn.allowed) {
      throw new AppError(
        'rate_limited',
        `Too many wrong passwords from ${device ? 'this browser' : 'your address'}; try again in ${inWords(turn.retryAfterMs)}.`,
        { retryAfterSeconds: Math.ceil(turn.retryAfterMs / 1000) },
      );
    }
    const parsed = signInForm.safeParse(request.body ?? {});
    const { password, next } = parsed.success ? parsed.data : { password: '', next: undefined };
    const stored = await adminPasswordHash(store.admin);
    if (!stored || !password || !(await verifyPassword(password, stored))) {
      request.log.warn({ ip: request.ip, knownDevice: device !== null }, 'dashboard sign-in refused');
      // Counted in the database, so the alarm sums every API process; exactly one request
      // crosses the threshold, so it sounds once per window.
      const failures = await store.rateLimits.hit('sign-in:failed', SIGN_IN_WINDOW_MS);
      if (failures.count === SIGN_IN_FAILURES_ALARM + 1) {
        request.log.error(
          { failures: failures.count, windowMinutes: SIGN_IN_WINDOW_MS / 60_000 },
          'many wrong dashboard passwords from several addresses: someone may be guessing the admin password',
        );
      }
      return sendPage(request, reply, 'Sign in', (csrf) => form(csrf, safeNext(next)), {
        status: 401,
        flash: { kind: 'error', text: 'That password is not right.' },
      });
    }
    // A right password is no failure. A device forgets its own; an address keeps the count of
    // everyone behind it, since the admin's success must not free a guesser who shares it.
    await turn.undo({ clear: device !== null });
    reply.setCookie(DEVICE_COOKIE, device ?? randomBytes(16).toString('base64url'), {
      ...cookieOptions,
      path: '/ui/sign-in',
      sameSite: 'strict',
      signed: true,
      maxAge: DEVICE_COOKIE_SECONDS,
    });
    const { token } = await store.admin.createSession(config.dashboard.sessionMs);
    reply.setCookie(SESSION_COOKIE, token, {
      ...cookieOptions,
      maxAge: Math.floor(config.dashboard.sessionMs / 1000),
    });
    request.log.info({ ip: request.ip }, 'dashboard sign-in');
    return reply.redirect(safeNext(next), 303);
  });

  app.post('/sign-out', { schema: { hide: true } }, async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE];
    if (token) await store.admin.deleteSession(token);
    reply.clearCookie(SESSION_COOKIE, { path: cookieOptions.path });
    return reply.redirect('/ui/sign-in?signedOut=1', 303);
  });
};
