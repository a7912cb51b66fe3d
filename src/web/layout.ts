/**
 * What every dashboard page shares: the signed-in session on the request, the cookies, and the
 * page frame with its CSRF token. The page plugins and `dashboard.ts` import this; it imports none
 * of them.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.js';
import type { Lifecycle } from '../domain/lifecycle.js';
import type { CodeHosts } from '../hosts/types.js';
import type { AdminSession } from '../store/admin.js';
import type { SecretBox } from '../store/secrets.js';
import type { Store } from '../store/store.js';
import { type Html, page } from './html.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in admin's session; set on every dashboard route but sign-in and assets. */
    adminSession: AdminSession | null;
  }
}

/**
 * The settings the dashboard's pages read: the data directory and secret key (cookie and CSRF
 * keys, askpass and mirrors), the limits and default model of a new job, the sandbox a project's
 * form shows, the public URL of a project's hook, the author of a local merge, the session's
 * length, whether webhooks may go to private addresses, and the automations' daily run limit.
 */
export type DashboardConfig = Pick<
  Config,
  | 'dataDir'
  | 'secretKey'
  | 'limits'
  | 'defaultModel'
  | 'checks'
  | 'publicUrl'
  | 'worker'
  | 'dashboard'
  | 'webhooks'
  | 'automations'
>;

/** What the dashboard and each of its page plugins are given. */
export interface DashboardOptions {
  config: DashboardConfig;
  store: Store;
  hosts: CodeHosts;
  /** The process's secret box: host tokens and webhook secrets are sealed with it. */
  secrets: () => SecretBox;
  /** The process's: while it drains, new jobs and follow-ups answer 503 as the API's do. */
  lifecycle?: Lifecycle;
}

export const SESSION_COOKIE = 'agentjobs_session';
/** What CSRF tokens of signed-out forms (the sign-in form) are bound to. */
export const SIGNED_OUT = 'signed-out';
/** Cookies only the dashboard reads: HttpOnly, never sent cross-site, Secure behind https. */
export const cookieOptions = {
  path: '/ui',
  httpOnly: true,
  sameSite: 'lax',
  secure: 'auto',
} as const;

/** A token for the forms of this response, bound to the session (or to "signed out"). */
export const csrfToken = (request: FastifyRequest, reply: FastifyReply): string =>
  reply.generateCsrf({ userInfo: request.adminSession?.id ?? SIGNED_OUT });

/** Sends a full signed-in page: navigation, the sign-out form and any flash message. */
export function sendPage(
  request: FastifyRequest,
  reply: FastifyReply,
  title: string,
  body: (csrf: string) => Html,
  options: { status?: number; flash?: { kind: 'ok' | 'error' | 'warn'; text: string } | null } = {},
) {
  const csrf = csrfToken(request, reply);
  return reply
    .code(options.status ?? 200)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(
      page(title, body(csrf), {
        csrf: request.adminSession ? csrf : undefined,
        flash: options.flash ?? null,
      }),
    );
}
