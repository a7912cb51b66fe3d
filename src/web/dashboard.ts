import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import type {
  FastifyError,
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
} from 'fastify';
import type { Config } from '../config/config.js';
import { redactSecrets } from '../domain/redact.js';
import { errorHeaders, statusOf, toAppError } from '../http/errors.js';
import { deriveKey, ensureSecretKey } from '../store/secrets.js';
import { assetRoutes } from './assets.js';
import { automationPages } from './automations.js';
import { html } from './html.js';
import { jobPages } from './jobs.js';
import { keyPages } from './keys.js';
import { cookieOptions, type DashboardOptions, SESSION_COOKIE, SIGNED_OUT, sendPage } from './layout.js';
import { projectLinearPages } from './project-linear.js';
import { projectSlackPages } from './project-slack.js';
import { projectPages } from './projects.js';
import { pullRequestPages } from './pulls.js';
import { signInPages } from './sign-in.js';
import { webhookPages } from './webhooks.js';

const CSRF_COOKIE = 'agentjobs_csrf';
/** Routes that answer without a session. */
const ASSETS_ROUTE = '/ui/assets/:name';
/**
 * Parts of pages, fetched by the page's script: signed out, they answer 401 rather than a redirect,
 * which `fetch` and `EventSource` would follow into the sign-in page and insert it.
 */
const FRAGMENT = /\/(rows|summary|stream)$/;

/**
 * The key CSRF tokens are signed with: derived from the server's secret key, which every process of
 * one deployment shares (it also opens the stored host tokens), so a form rendered by one API
 * process can be posted to another. Derived, so the two uses never share key material.
 */
function csrfKey(config: Pick<Config, 'secretKey' | 'dataDir'>): string {
  return deriveKey(ensureSecretKey(config), 'dashboard csrf v1').toString('base64url');
}

/** The key signed cookies (the sign-in's device cookie) are signed with, derived the same way. */
function cookieKey(config: Pick<Config, 'secretKey' | 'dataDir'>): Buffer {
  return deriveKey(ensureSecretKey(config), 'dashboard cookies v1');
}

function errorPage(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  title: string,
  text: string,
) {
  const back = request.adminSession
    ? html`<a href="/ui/projects">Back to projects</a>`
    : html`<a href="/ui/sign-in">Sign in</a>`;
  return sendPage(request, reply, title, () => html`<h1>${title}</h1><p>${text}</p><p>${back}</p>`, {
    status,
  });
}

/**
 * The dashboard under `/ui` (docs/dashboard.md): server-rendered pages behind the admin sign-in.
 * Everything here is encapsulated: its cookies, form parsing, CSRF checks, security headers and
 * HTML errors do not touch the JSON API next to it.
 */
export const dashboard: FastifyPluginAsync<DashboardOptions> = async (app, options) => {
  const { store } = options;
  await registerPlugins(app, options.config);
  sessionHooks(app, store);
  errorHandlers(app, store);

  // Registered with the prefix `/ui`: paths below are relative to it.
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect('/ui/projects', 303));
  await app.register(assetRoutes);
  // Not `options` itself: it carries the `/ui` prefix, which would apply a second time.
  const pages = {
    config: options.config,
    store,
    hosts: options.hosts,
    secrets: options.secrets,
    lifecycle: options.lifecycle,
  };
  for (const plugin of [
    signInPages,
    projectPages,
    projectSlackPages,
    projectLinearPages,
    keyPages,
    webhookPages,
    automationPages,
    jobPages,
    pullRequestPages,
  ])
    await app.register(plugin, pages);
};

type Store = DashboardOptions['store'];

/** Cookies, form bodies, security headers and CSRF tokens, for the dashboard only. */
async function registerPlugins(app: FastifyInstance, config: DashboardOptions['config']): Promise<void> {
  await app.register(cookie, { secret: cookieKey(config) });
  // A follow-up of the longest allowed prompt, URL-encoded: up to 4 UTF-8 bytes a character, each
  // written as %XX. Form fields besides it are small.
  await app.register(formbody, { bodyLimit: config.limits.maxPromptChars * 12 + 64 * 1024 });
  await app.register(helmet, {
    // Only files from this origin: no inline script or style anywhere, so an injected tag is inert.
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
    },
    // The job page links to the pull request on the code host; the URL itself is no secret.
    referrerPolicy: { policy: 'same-origin' },
  });
  await app.register(csrf, {
    cookieKey: CSRF_COOKIE,
    // Lax like the session: a page opened from a link elsewhere (a prLink in chat) must not get a
    // new secret, which would invalidate the forms open in other tabs. Tokens are session-bound.
    cookieOpts: cookieOptions,
    getUserInfo: (request) => request.adminSession?.id ?? SIGNED_OUT,
    csrfOpts: { hmacKey: csrfKey(config) },
  });
}

/** The admin session on every request, and a CSRF check on every post. */
function sessionHooks(app: FastifyInstance, store: Store): void {
  app.decorateRequest('adminSession', null);
  app.addHook('onRequest', async (request, reply) => {
    const route = request.routeOptions.url ?? '';
    if (route === ASSETS_ROUTE) return;
    const token = request.cookies[SESSION_COOKIE];
    const found = token ? await store.admin.findSession(token) : undefined;
    if (found && !found.expired) request.adminSession = found.session;
    if (route === '/ui/sign-in' || request.adminSession) return;
    if (token) {
      if (found) await store.admin.deleteSession(token);
      reply.clearCookie(SESSION_COOKIE, { path: cookieOptions.path });
    }
    if (FRAGMENT.test(route)) return reply.code(401).type('text/plain; charset=utf-8').send('Signed out.');
    const query = new URLSearchParams();
    if (request.method === 'GET' && !request.url.startsWith('/ui/sign-in')) query.set('next', request.url);
    if (found?.expired) query.set('expired', '1');
    return reply.redirect(`/ui/sign-in${query.size ? `?${query}` : ''}`, 303);
  });
  // Every form posts its token; a post without a valid one never reaches a handler.
  app.addHook('preHandler', (request, reply, done) => {
    if (request.method === 'POST') return app.csrfProtection(request, reply, done);
    done();
  });
}

/** HTML error pages: an expired form, a failure, a page that does not exist. */
function errorHandlers(app: FastifyInstance, store: Store): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.code === 'FST_CSRF_INVALID_TOKEN' || error.code === 'FST_CSRF_MISSING_SECRET') {
      return errorPage(
        request,
        reply,
        403,
        'This form has expired',
        'The form was not sent with a valid security token (it is older than your session, or it came from another site). Go back, reload the page and try again.',
      );
    }
    const appError = toAppError(error, store.isTransient);
    if (appError.code === 'internal_error') request.log.error({ err: error }, 'dashboard request failed');
    reply.headers(errorHeaders(appError));
    const status = statusOf(appError.code);
    const title =
      status === 404 ? 'Not found' : status === 429 ? 'Too many attempts' : 'Something went wrong';
    return errorPage(request, reply, status, title, redactSecrets(appError.message));
  });
  app.setNotFoundHandler((request, reply) =>
    errorPage(request, reply, 404, 'Not found', 'There is no such page in the dashboard.'),
  );
}
