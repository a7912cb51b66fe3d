import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKey } from '../domain/api-key.js';
import { AppError } from '../domain/errors.js';
import { parseAllowlistEntry } from '../domain/ip-allowlist.js';
import { generateKey, hashKey } from '../domain/keys.js';
import { html } from './html.js';
import {
  createdKey,
  createForm,
  expiryOf,
  INSTANCE_OWNER,
  instanceHeader,
  type KeyFormErrors,
  type KeyOwner,
  keyForm,
  keyTable,
  projectOwner,
} from './key-views.js';
import { cookieOptions, type DashboardOptions, sendPage } from './layout.js';
import { NOTICES, projectHeader, projectOf } from './project-header.js';

const KEY_NOTICES: Record<string, string> = {
  ...NOTICES,
  revoked: 'The key is revoked; the API refuses it from now on.',
};

const NEW_KEY_COOKIE = 'agentjobs_new_key';
/** Scoped to the page that shows the key, so that no other page (nor another owner's) gets it. */
const newKeyCookie = (owner: KeyOwner) => ({
  ...cookieOptions,
  sameSite: 'strict' as const,
  path: owner.path,
});

interface PageState {
  created?: { key: string; record: ApiKey };
  errors?: KeyFormErrors;
  values?: Record<string, unknown>;
  notice?: string;
}

/**
 * The API keys pages: a project's keys (`/ui/projects/:projectId/keys`), which also lists the
 * instance keys that work on it, and the instance keys (`/ui/keys`), which work on every project.
 * Both create (the key shown once), list and revoke alike.
 */
export const keyPages: FastifyPluginAsync<DashboardOptions> = async (app, { store }) => {
  /** The key just made, read once from its cookie, which is cleared at the same time. */
  const takeNewKey = async (request: FastifyRequest, reply: FastifyReply, owner: KeyOwner) => {
    const value = request.cookies[NEW_KEY_COOKIE];
    if (!value) return undefined;
    reply.clearCookie(NEW_KEY_COOKIE, { path: owner.path });
    const [id = '', key = ''] = value.split('.');
    const record = key ? await store.apiKeys.findByHash(hashKey(key)) : undefined;
    if (!record || record.id !== id || record.projectId !== (owner.project?.id ?? null)) return undefined;
    const { keyHash: _hash, ...shown } = record;
    return { key, record: shown };
  };

  const keysPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    owner: KeyOwner,
    state: PageState = {},
  ) => {
    const { project } = owner;
    const keys = await store.apiKeys.list(project?.id ?? null);
    // A project's page shows the instance keys too: they work on it, and a reader looking for
    // what can reach this project must see them. They are managed on their own page.
    const instanceKeys = project ? await store.apiKeys.list(null) : [];
    const errors = state.errors ?? {};
    return sendPage(
      request,
      reply,
      project ? `${project.name} API keys` : 'Instance keys',
      (csrf) => html`${project ? projectHeader(project, 'keys') : instanceHeader()}
      ${state.created ? createdKey(owner, state.created) : ''}
      ${createForm(owner, csrf, errors, state.values ?? {})}
      <section><h2>${project ? 'Keys' : 'Instance keys'} (${keys.length})</h2>
        ${keyTable(keys, project ? 'No keys yet.' : 'No instance keys yet.', { owner, csrf })}
      </section>
      ${
        project
          ? html`<section id="instance-keys"><h2>Instance keys (${instanceKeys.length})</h2>
        <p class="hint pad">These work on every project, this one included. <a href="${INSTANCE_OWNER.path}">Manage instance keys</a></p>
        ${keyTable(instanceKeys, 'No instance keys.')}</section>`
          : ''
      }`,
      Object.keys(errors).length
        ? { status: 400, flash: { kind: 'error', text: 'The key was not created; see below.' } }
        : { flash: state.notice ? { kind: 'ok', text: state.notice } : null },
    );
  };

  const showPage = async (request: FastifyRequest, reply: FastifyReply, owner: KeyOwner) => {
    const { notice: noticeName } = request.query as { notice?: string };
    const notice = noticeName ? KEY_NOTICES[noticeName] : undefined;
    const created = await takeNewKey(request, reply, owner);
    return keysPage(request, reply, owner, {
      ...(notice ? { notice } : {}),
      ...(created ? { created } : {}),
    });
  };

  const create = async (request: FastifyRequest, reply: FastifyReply, owner: KeyOwner) => {
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
      return keysPage(request, reply, owner, { errors, values: body });
    const { name, scopes, expires, ips } = parsed.data;
    const key = generateKey();
    const projectId = owner.project?.id ?? null;
    const record = await store.apiKeys.create({
      projectId,
      key,
      name,
      scopes,
      ipAllowlist: ips.length ? ips : null,
      expiresAt: expiryOf(expires),
    });
    request.log.info({ projectId, keyId: record.id }, 'API key created in the dashboard');
    // Post/redirect/get, so that reloading the page cannot make a second key. The key rides to the
    // next page in a cookie scoped to the keys page, which that page clears. A session cookie (no
    // Max-Age), so a browser that never follows the redirect does not keep it on disk.
    reply.setCookie(NEW_KEY_COOKIE, `${record.id}.${key}`, newKeyCookie(owner));
    return reply.redirect(owner.path, 303);
  };

  const revoke = async (request: FastifyRequest, reply: FastifyReply, owner: KeyOwner) => {
    const { keyId } = request.params as { keyId: string };
    const projectId = owner.project?.id ?? null;
    if (!(await store.apiKeys.revoke(projectId, keyId)))
      throw new AppError(
        'not_found',
        owner.project ? 'There is no such key in this project.' : 'There is no such instance key.',
      );
    request.log.info({ projectId, keyId }, 'API key revoked in the dashboard');
    return reply.redirect(`${owner.path}?notice=revoked`, 303);
  };

  const ofProject = async (request: FastifyRequest) => projectOwner(await projectOf(store, request));
  const hide = { schema: { hide: true } };
  app.get('/projects/:projectId/keys', hide, async (request, reply) =>
    showPage(request, reply, await ofProject(request)),
  );
  app.post('/projects/:projectId/keys', hide, async (request, reply) =>
    create(request, reply, await ofProject(request)),
  );
  app.post('/projects/:projectId/keys/:keyId/revoke', hide, async (request, reply) =>
    revoke(request, reply, await ofProject(request)),
  );
  app.get('/keys', hide, (request, reply) => showPage(request, reply, INSTANCE_OWNER));
  app.post('/keys', hide, (request, reply) => create(request, reply, INSTANCE_OWNER));
  app.post('/keys/:keyId/revoke', hide, (request, reply) => revoke(request, reply, INSTANCE_OWNER));
};
