import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ApiKey } from '../domain/api-key.js';
import { AppError } from '../domain/errors.js';
import { parseAllowlistEntry } from '../domain/ip-allowlist.js';
import { generateKey, hashKey, KEY_SCOPES } from '../domain/keys.js';
import type { Project } from '../domain/project.js';
import { fieldHint, type Html, html, time } from './html.js';
import { cookieOptions, type DashboardOptions, sendPage } from './layout.js';
import { NOTICES, projectHeader, projectOf } from './project-header.js';

const DAY_MS = 86_400_000;
const EXPIRY_CHOICES = ['7', '30', '60', '90', 'never'] as const;
/** A key this close to its expiry gets the "expires soon" badge. */
const SOON_MS = 7 * DAY_MS;

const asList = (value: unknown) => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

const keyForm = z.object({
  name: z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters'),
  scopes: z.preprocess(asList, z.array(z.enum(KEY_SCOPES)).min(1, 'pick at least one scope')),
  expires: z.enum(EXPIRY_CHOICES, { error: 'pick one of the choices' }),
  ips: z
    .string()
    .default('')
    .transform((text) => text.split(/[\s,]+/).filter(Boolean)),
});

type KeyFormErrors = Partial<Record<'name' | 'scopes' | 'expires' | 'ips', string>>;

const KEY_NOTICES: Record<string, string> = {
  ...NOTICES,
  revoked: 'The key is revoked; the API refuses it from now on.',
};

function badge(key: ApiKey, now: number): Html {
  if (key.revokedAt) return html`<span class="badge revoked">revoked</span>`;
  if (key.expiresAt) {
    const left = Date.parse(key.expiresAt) - now;
    if (left <= 0) return html`<span class="badge expired">expired</span>`;
    if (left <= SOON_MS) return html`<span class="badge soon">expires soon</span>`;
  }
  return html`<span class="badge active">active</span>`;
}

function keyRow(project: Project, key: ApiKey, csrf: string, now: number): Html {
  const revoke = key.revokedAt
    ? ''
    : html`<details class="confirm"><summary class="button danger" role="button">Revoke</summary>
        <form method="post" action="/ui/projects/${project.id}/keys/${key.id}/revoke">
          <input type="hidden" name="_csrf" value="${csrf}">
          <p>Requests with “${key.name}” will be refused at once.</p>
          <button class="danger" type="submit">Yes, revoke “${key.name}”</button></form></details>`;
  return html`<tr><td>${key.name}</td><td><code>${key.prefix}…</code></td><td>${key.scopes.join(', ')}</td>
    <td class="optional">${time(key.createdAt)}</td><td class="optional">${time(key.lastUsedAt)}</td>
    <td>${badge(key, now)}${key.expiresAt && !key.revokedAt ? html`<div class="hint">until ${time(key.expiresAt)}</div>` : ''}</td><td>${revoke}</td></tr>`;
}

const NEW_KEY_COOKIE = 'agentjobs_new_key';
const newKeyCookie = (project: Project) => ({
  ...cookieOptions,
  sameSite: 'strict' as const,
  path: `/ui/projects/${project.id}/keys`,
});

export const keyPages: FastifyPluginAsync<DashboardOptions> = async (app, { store }) => {
  /** The key just made, read once from its cookie, which is cleared at the same time. */
  const takeNewKey = async (request: FastifyRequest, reply: FastifyReply, project: Project) => {
    const value = request.cookies[NEW_KEY_COOKIE];
    if (!value) return undefined;
    reply.clearCookie(NEW_KEY_COOKIE, { path: newKeyCookie(project).path });
    const [id = '', key = ''] = value.split('.');
    const record = key ? await store.apiKeys.findByHash(hashKey(key)) : undefined;
    if (!record || record.id !== id || record.projectId !== project.id) return undefined;
    const { keyHash: _hash, ...shown } = record;
    return { key, record: shown };
  };

  const keysPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    project: Project,
    state: {
      created?: { key: string; record: ApiKey };
      errors?: KeyFormErrors;
      values?: Record<string, unknown>;
      notice?: string;
    } = {},
  ) => {
    const keys = await store.apiKeys.list(project.id);
    const now = Date.now();
    const errors = state.errors ?? {};
    const values = state.values ?? {};
    const chosenScopes = values.scopes === undefined ? ['read', 'write'] : asList(values.scopes);
    const expires = typeof values.expires === 'string' ? values.expires : '90';
    return sendPage(
      request,
      reply,
      `${project.name} API keys`,
      (csrf) => html`${projectHeader(project, 'keys')}
      ${
        state.created
          ? html`<section class="created-key"><h2>New key “${state.created.record.name}”</h2><div class="pad">
            <div class="flash warn" role="alert">Copy this key now. It will not be shown again: only its hash is stored.</div>
            <div class="secret"><code id="new-key">${state.created.key}</code><button type="button" data-copy="new-key">Copy</button></div>
            <p class="hint">Send it as <code>Authorization: Bearer …</code> to <code>/v2/agent/${project.id}/job</code>.</p></div></section>`
          : ''
      }
      <section><h2>Create a key</h2>
        <form class="stack" method="post" action="/ui/projects/${project.id}/keys">
          <input type="hidden" name="_csrf" value="${csrf}">
          <div><label for="k-name">Name</label><input type="text" id="k-name" name="name" value="${typeof values.name === 'string' ? values.name : ''}" required aria-describedby="h-k-name">
            ${fieldHint('h-k-name', errors.name, 'What or who uses it, e.g. “CI docs bot”.')}</div>
          <fieldset><legend>Scopes</legend>${KEY_SCOPES.map(
            (scope) =>
              html`<input type="checkbox" id="k-scope-${scope}" name="scopes" value="${scope}"${chosenScopes.includes(scope) ? html` checked` : ''}><label for="k-scope-${scope}">${scope}</label>`,
          )}${fieldHint('h-k-scopes', errors.scopes, 'read: get jobs; write: create jobs, follow up, archive.')}</fieldset>
          <div><label for="k-expires">Expires</label><select id="k-expires" name="expires">${EXPIRY_CHOICES.map(
            (c) =>
              html`<option value="${c}"${expires === c ? html` selected` : ''}>${c === 'never' ? 'never' : `in ${c} days`}</option>`,
          )}</select>${fieldHint('h-k-expires', errors.expires, '')}</div>
          <div><label for="k-ips">IP allowlist</label><textarea id="k-ips" name="ips" rows="2" aria-describedby="h-k-ips">${typeof values.ips === 'string' ? values.ips : ''}</textarea>
            ${fieldHint('h-k-ips', errors.ips, 'Optional: addresses or CIDR ranges, one per line. Empty: any address.')}</div>
          <div class="actions"><button class="primary" type="submit">Create key</button></div>
        </form></section>
      <section><h2>Keys (${keys.length})</h2>
        ${
          keys.length === 0
            ? html`<div class="pad">No keys yet.</div>`
            : html`<div class="table-wrap"><table><thead><tr><th>Name</th><th>Prefix</th><th>Scopes</th><th class="optional">Created</th><th class="optional">Last used</th><th>Status</th><th><span class="sr-only">Actions</span></th></tr></thead>
            <tbody>${keys.map((key) => keyRow(project, key, csrf, now))}</tbody></table></div>`
        }
      </section>`,
      Object.keys(errors).length
        ? { status: 400, flash: { kind: 'error', text: 'The key was not created; see below.' } }
        : { flash: state.notice ? { kind: 'ok', text: state.notice } : null },
    );
  };

  app.get<{ Querystring: { notice?: string } }>(
    '/projects/:projectId/keys',
    { schema: { hide: true } },
    async (request, reply) => {
      const project = await projectOf(store, request);
      const notice = request.query.notice ? KEY_NOTICES[request.query.notice] : undefined;
      const created = await takeNewKey(request, reply, project);
      return keysPage(request, reply, project, {
        ...(notice ? { notice } : {}),
        ...(created ? { created } : {}),
      });
    },
  );

  app.post('/projects/:projectId/keys', { schema: { hide: true } }, async (request, reply) => {
    const project = await projectOf(store, request);
    const body = (request.body ?? {}) as Record<string, unknown>;
    const parsed = keyForm.safeParse(body);
    const errors: KeyFormErrors = {};
    if (!parsed.success)
      for (const issue of parsed.error.issues)
        errors[String(issue.path[0]) as keyof KeyFormErrors] ??= issue.message;
    for (const entry of parsed.success ? parsed.data.ips : []) {
      try {
        parseAllowlistEntry(entry);
      } catch (error) {
        errors.ips ??= `“${entry}”: ${(error as Error).message}`;
      }
    }
    if (!parsed.success || Object.keys(errors).length)
      return keysPage(request, reply, project, { errors, values: body });
    const { name, scopes, expires, ips } = parsed.data;
    const key = generateKey();
    const record = await store.apiKeys.create({
      projectId: project.id,
      key,
      name,
      scopes,
      ipAllowlist: ips.length ? ips : null,
      expiresAt: expires === 'never' ? null : new Date(Date.now() + Number(expires) * DAY_MS).toISOString(),
    });
    request.log.info({ projectId: project.id, keyId: record.id }, 'API key created in the dashboard');
    // Post/redirect/get, so that reloading the page cannot make a second key. The key rides to the
    // next page in a cookie scoped to the keys page, which that page clears. A session cookie (no
    // Max-Age), so a browser that never follows the redirect does not keep it on disk.
    reply.setCookie(NEW_KEY_COOKIE, `${record.id}.${key}`, newKeyCookie(project));
    return reply.redirect(`/ui/projects/${project.id}/keys`, 303);
  });

  app.post<{ Params: { projectId: string; keyId: string } }>(
    '/projects/:projectId/keys/:keyId/revoke',
    { schema: { hide: true } },
    async (request, reply) => {
      const project = await projectOf(store, request);
      if (!(await store.apiKeys.revoke(project.id, request.params.keyId)))
        throw new AppError('not_found', 'There is no such key in this project.');
      request.log.info(
        { projectId: project.id, keyId: request.params.keyId },
        'API key revoked in the dashboard',
      );
      return reply.redirect(`/ui/projects/${project.id}/keys?notice=revoked`, 303);
    },
  );
};
