import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKey } from '../domain/api-key.js';
import { AppError } from '../domain/errors.js';
import { hashKey } from '../domain/keys.js';
import { InputError } from '../operations/input.js';
import { type CreatedKey, createKey, listKeys, revokeKey } from '../operations/keys.js';
import type { Store } from '../store/store.js';
import { html } from './html.js';
import {
  createdKey,
  createForm,
  INSTANCE_OWNER,
  instanceHeader,
  type KeyFormErrors,
  type KeyOwner,
  keyFormErrors,
  keyTable,
  projectOwner,
  readKeyForm,
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

/** The key just made, read once from its cookie, which is cleared at the same time. */
async function takeNewKey(store: Store, request: FastifyRequest, reply: FastifyReply, owner: KeyOwner) {
  const value = request.cookies[NEW_KEY_COOKIE];
  if (!value) return undefined;
  reply.clearCookie(NEW_KEY_COOKIE, { path: owner.path });
  const [id = '', key = ''] = value.split('.');
  const record = key ? await store.apiKeys.findByHash(hashKey(key)) : undefined;
  if (!record || record.id !== id || record.projectId !== (owner.project?.id ?? null)) return undefined;
  const { keyHash: _hash, ...shown } = record;
  return { key, record: shown };
}

async function keysPage(
  store: Store,
  request: FastifyRequest,
  reply: FastifyReply,
  owner: KeyOwner,
  state: PageState = {},
) {
  const { project } = owner;
  // A project's page shows the instance keys too: they work on it, and a reader looking for
  // what can reach this project must see them. They are managed on their own page.
  const { keys, instanceKeys } = await listKeys({ store }, project?.id ?? null);
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
}

async function showPage(store: Store, request: FastifyRequest, reply: FastifyReply, owner: KeyOwner) {
  const { notice: noticeName } = request.query as { notice?: string };
  const notice = noticeName ? KEY_NOTICES[noticeName] : undefined;
  const created = await takeNewKey(store, request, reply, owner);
  return keysPage(store, request, reply, owner, {
    ...(notice ? { notice } : {}),
    ...(created ? { created } : {}),
  });
}

async function create(store: Store, request: FastifyRequest, reply: FastifyReply, owner: KeyOwner) {
  const body = (request.body ?? {}) as Record<string, unknown>;
  const projectId = owner.project?.id ?? null;
  let made: CreatedKey;
  try {
    made = await createKey({ store }, readKeyForm(body, projectId));
  } catch (error) {
    if (!InputError.isInstance(error)) throw error;
    return keysPage(store, request, reply, owner, { errors: keyFormErrors(error), values: body });
  }
  const { key, record } = made;
  request.log.info({ projectId, keyId: record.id }, 'API key created in the dashboard');
  // Post/redirect/get, so that reloading the page cannot make a second key. The key rides to the
  // next page in a cookie scoped to the keys page, which that page clears. A session cookie (no
  // Max-Age), so a browser that never follows the redirect does not keep it on disk.
  reply.setCookie(NEW_KEY_COOKIE, `${record.id}.${key}`, newKeyCookie(owner));
  return reply.redirect(owner.path, 303);
}

async function revoke(store: Store, request: FastifyRequest, reply: FastifyReply, owner: KeyOwner) {
  const { keyId } = request.params as { keyId: string };
  const projectId = owner.project?.id ?? null;
  try {
    await revokeKey({ store }, projectId, keyId);
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'not_found') throw error;
    // The page's words: the id is in the address the reader already has.
    throw new AppError(
      'not_found',
      owner.project ? 'There is no such key in this project.' : 'There is no such instance key.',
    );
  }
  request.log.info({ projectId, keyId }, 'API key revoked in the dashboard');
  return reply.redirect(`${owner.path}?notice=revoked`, 303);
}

/**
 * The API keys pages: a project's keys (`/ui/projects/:projectId/keys`), which also lists the
 * instance keys that work on it, and the instance keys (`/ui/keys`), which work on every project.
 * Both create (the key shown once), list and revoke alike, through the key operations
 * (`operations/keys.ts`).
 */
export const keyPages: FastifyPluginAsync<DashboardOptions> = async (app, { store }) => {
  const ofProject = async (request: FastifyRequest) => projectOwner(await projectOf(store, request));
  const hide = { schema: { hide: true } };
  app.get('/projects/:projectId/keys', hide, async (request, reply) =>
    showPage(store, request, reply, await ofProject(request)),
  );
  app.post('/projects/:projectId/keys', hide, async (request, reply) =>
    create(store, request, reply, await ofProject(request)),
  );
  app.post('/projects/:projectId/keys/:keyId/revoke', hide, async (request, reply) =>
    revoke(store, request, reply, await ofProject(request)),
  );
  app.get('/keys', hide, (request, reply) => showPage(store, request, reply, INSTANCE_OWNER));
  app.post('/keys', hide, (request, reply) => create(store, request, reply, INSTANCE_OWNER));
  app.post('/keys/:keyId/revoke', hide, (request, reply) => revoke(store, request, reply, INSTANCE_OWNER));
};
