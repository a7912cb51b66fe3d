import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { AppError } from '../domain/errors.js';
import { adminPasswordHash, verifyPassword } from '../domain/password.js';
import { html } from './html.js';
import { cookieOptions, type DashboardOptions, SESSION_COOKIE, sendPage } from './layout.js';

const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
/** Wrong passwords one address may try per window; scrypt makes each try slow too. */
const SIGN_IN_ATTEMPTS = 10;
/**
 * Wrong passwords from all addresses together per window before the log raises an alarm. This is
 * an alarm, not a lock: a global lock is one that anyone who can reach the page can set, locking
 * the admin out with wrong passwords from a handful of addresses. Refusing wrong passwords over it
 * would bound nothing either, since the answer to the right one would still differ. What bounds
 * guessing is the per-address limit and scrypt's cost; this says when someone is trying.
 */
const SIGN_IN_FAILURES_ALARM = 200;

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

  app.post(
    '/sign-in',
    {
      schema: { hide: true },
      config: {
        rateLimit: {
          max: SIGN_IN_ATTEMPTS,
          timeWindow: SIGN_IN_WINDOW_MS,
          keyGenerator: (request) => `sign-in:${request.ip}`,
          errorResponseBuilder: (_request, context) =>
            new AppError(
              'rate_limited',
              `Too many sign-in attempts from your address; try again in ${context.after}.`,
            ),
        },
      },
    },
    async (request, reply) => {
      const parsed = signInForm.safeParse(request.body ?? {});
      const { password, next } = parsed.success ? parsed.data : { password: '', next: undefined };
      const stored = await adminPasswordHash(store.admin);
      if (!stored || !password || !(await verifyPassword(password, stored))) {
        request.log.warn({ ip: request.ip }, 'dashboard sign-in refused');
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
      const { token } = await store.admin.createSession(config.dashboard.sessionMs);
      reply.setCookie(SESSION_COOKIE, token, {
        ...cookieOptions,
        maxAge: Math.floor(config.dashboard.sessionMs / 1000),
      });
      request.log.info({ ip: request.ip }, 'dashboard sign-in');
      return reply.redirect(safeNext(next), 303);
    },
  );

  app.post('/sign-out', { schema: { hide: true } }, async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE];
    if (token) await store.admin.deleteSession(token);
    reply.clearCookie(SESSION_COOKIE, { path: cookieOptions.path });
    return reply.redirect('/ui/sign-in?signedOut=1', 303);
  });
};
