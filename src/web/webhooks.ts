/**
 * The Webhooks tab of a project (docs/dashboard.md): endpoints with the secret shown once, enable and
 * disable, rotate the secret, delete; an endpoint's deliveries with each attempt, and redeliver.
 * Every form posts its CSRF token (checked in `dashboard.ts`) and redirects (post/redirect/get).
 * The pages parse forms and render; every rule is the endpoint operations'
 * (`operations/webhook-endpoints.ts`), the API's too, so both refuse the same input with the same words.
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { isAppError } from '../domain/errors.js';
import type { Project } from '../domain/project.js';
import { WEBHOOK_EVENT_TYPES, type WebhookDelivery, type WebhookEndpoint } from '../domain/webhook.js';
import { statusOf } from '../http/errors.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  redeliverWebhookDelivery,
  rotateWebhookSecret,
  updateWebhookEndpoint,
  type WebhookEndpointDeps,
} from '../operations/webhook-endpoints.js';
import { clip, fieldHint, type Html, html, time } from './html.js';
import { cookieOptions, type DashboardOptions, sendPage } from './layout.js';
import { NOTICES, projectHeader, projectOf } from './project-header.js';

const asList = (value: unknown) => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

// Only the form's shape: what the values must be is the operation's to say.
const webhookForm = z.object({
  url: z.string().default(''),
  events: z.preprocess(asList, z.array(z.enum(WEBHOOK_EVENT_TYPES))),
  description: z.string().default(''),
});
type FormField = 'url' | 'events' | 'description';
type FormErrors = Partial<Record<FormField, string>>;

const WEBHOOK_NOTICES: Record<string, string> = {
  ...NOTICES,
  enabled: 'The endpoint is enabled.',
  disabled: 'The endpoint is disabled: no events are sent to it until it is enabled again.',
  deleted: 'The endpoint and its delivery log are deleted.',
  redelivered: 'The delivery is queued to be sent again.',
};

const NEW_SECRET_COOKIE = 'agentjobs_new_webhook_secret';
const secretCookie = (project: Project) => ({
  ...cookieOptions,
  sameSite: 'strict' as const,
  path: `/ui/projects/${project.id}/webhooks`,
});

function stateBadge(endpoint: WebhookEndpoint): Html {
  if (endpoint.enabled) {
    return endpoint.failingSince
      ? html`<span class="badge soon">failing</span><div class="hint">since ${time(endpoint.failingSince)}</div>`
      : html`<span class="badge active">enabled</span>`;
  }
  return html`<span class="badge revoked">disabled</span>${endpoint.disabledReason ? html`<div class="hint">${endpoint.disabledReason}</div>` : ''}`;
}

const postButton = (action: string, csrf: string, label: string, kind = '') =>
  html`<form method="post" action="${action}" class="inline"><input type="hidden" name="_csrf" value="${csrf}"><button type="submit"${kind ? html` class="${kind}"` : ''}>${label}</button></form>`;

function endpointRow(project: Project, endpoint: WebhookEndpoint, csrf: string): Html {
  const base = `/ui/projects/${project.id}/webhooks/${endpoint.id}`;
  return html`<tr><td><a href="${base}">${clip(endpoint.url, 80)}</a>${endpoint.description ? html`<div class="hint">${endpoint.description}</div>` : ''}</td>
    <td>${endpoint.events?.join(', ') ?? 'all'}</td><td>${stateBadge(endpoint)}</td>
    <td class="optional">${time(endpoint.createdAt)}</td>
    <td>${endpoint.enabled ? postButton(`${base}/disable`, csrf, 'Disable') : postButton(`${base}/enable`, csrf, 'Enable')}
      <details class="confirm"><summary class="button" role="button">Rotate secret</summary>
        <form method="post" action="${base}/rotate"><input type="hidden" name="_csrf" value="${csrf}">
          <p>A new secret is shown once; the current one keeps signing beside it for 24 hours.</p>
          <button type="submit">Yes, rotate</button></form></details>
      <details class="confirm"><summary class="button danger" role="button">Delete</summary>
        <form method="post" action="${base}/delete"><input type="hidden" name="_csrf" value="${csrf}">
          <p>No more events go to ${endpoint.url}; its delivery log is deleted.</p>
          <button class="danger" type="submit">Yes, delete</button></form></details></td></tr>`;
}

function attemptLines(delivery: WebhookDelivery): Html {
  if (delivery.attempts.length === 0) return html`<span class="hint">not tried yet</span>`;
  return html`<ol class="attempts">${delivery.attempts.map(
    (attempt) =>
      html`<li>${time(attempt.at)} · ${attempt.responseStatus === null ? 'no response' : `HTTP ${attempt.responseStatus}`} · ${attempt.durationMs} ms${attempt.error ? html` · <strong class="bad">${attempt.error}</strong>` : ''}${attempt.responseExcerpt ? html`<pre>${clip(attempt.responseExcerpt, 300)}</pre>` : ''}</li>`,
  )}</ol>`;
}

/** The list page's state beyond the endpoints: a secret to show once, a form to show again. */
interface ListState {
  created?: { endpoint: WebhookEndpoint; secret: string };
  errors?: FormErrors;
  /** The status of a refused form: the refusal's own (422 for a URL the rules refuse). */
  status?: number;
  values?: Record<string, unknown>;
  notice?: string;
}

function createdSecret(created: ListState['created']): Html | string {
  if (!created) return '';
  return html`<section class="created-key"><h2>Signing secret of ${created.endpoint.url}</h2><div class="pad">
    <div class="flash warn" role="alert">Copy this secret now. It will not be shown again.</div>
    <div class="secret"><code id="new-secret">${created.secret}</code><button type="button" data-copy="new-secret">Copy</button></div>
    <p class="hint">Verify each request with it (Standard Webhooks: the <code>webhook-id</code>, <code>webhook-timestamp</code> and <code>webhook-signature</code> headers).</p></div></section>`;
}

function addForm(project: Project, csrf: string, state: ListState): Html {
  const errors = state.errors ?? {};
  const values = state.values ?? {};
  const chosen = asList(values.events);
  return html`<section><h2>Add an endpoint</h2>
    <form class="stack" method="post" action="/ui/projects/${project.id}/webhooks">
      <input type="hidden" name="_csrf" value="${csrf}">
      <div><label for="w-url">URL</label><input type="url" id="w-url" name="url" value="${typeof values.url === 'string' ? values.url : ''}" required aria-describedby="h-w-url"${errors.url ? html` aria-invalid="true"` : ''}>
        ${fieldHint('h-w-url', errors.url, 'http(s), no credentials, no #fragment; private and loopback addresses only with AGENTJOBS_WEBHOOK_ALLOW_PRIVATE.')}</div>
      <fieldset><legend>Events</legend>${WEBHOOK_EVENT_TYPES.map(
        (type) =>
          html`<span class="choice"><input type="checkbox" id="w-ev-${type}" name="events" value="${type}"${chosen.includes(type) ? html` checked` : ''}><label for="w-ev-${type}">${type}</label></span>`,
      )}${fieldHint('h-w-events', errors.events, 'None checked: all of them.')}</fieldset>
      <div><label for="w-description">Description</label><input type="text" id="w-description" name="description" value="${typeof values.description === 'string' ? values.description : ''}" aria-describedby="h-w-description"${errors.description ? html` aria-invalid="true"` : ''}>
        ${fieldHint('h-w-description', errors.description, 'Optional: what receives these events.')}</div>
      <div class="actions"><button class="primary" type="submit">Add endpoint</button></div>
    </form></section>`;
}

function endpointTable(project: Project, endpoints: WebhookEndpoint[], csrf: string): Html {
  return html`<section><h2>Endpoints (${endpoints.length})</h2>
    ${
      endpoints.length === 0
        ? html`<div class="pad">No endpoints yet: job events are not pushed anywhere.</div>`
        : html`<div class="table-wrap"><table><thead><tr><th>URL</th><th>Events</th><th>State</th><th class="optional">Created</th><th><span class="sr-only">Actions</span></th></tr></thead>
        <tbody>${endpoints.map((endpoint) => endpointRow(project, endpoint, csrf))}</tbody></table></div>`
    }
  </section>`;
}

async function listPage(
  deps: WebhookEndpointDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  project: Project,
  state: ListState = {},
) {
  const endpoints = await listWebhookEndpoints(deps, project.id);
  const refused = Object.keys(state.errors ?? {}).length > 0;
  return sendPage(
    request,
    reply,
    `${project.name} webhooks`,
    (csrf) =>
      html`${projectHeader(project, 'webhooks')}${createdSecret(state.created)}${addForm(project, csrf, state)}${endpointTable(project, endpoints, csrf)}`,
    refused
      ? {
          status: state.status ?? 400,
          flash: { kind: 'error', text: 'The endpoint was not added; see below.' },
        }
      : { flash: state.notice ? { kind: 'ok', text: state.notice } : null },
  );
}

/** The secret just made, carried in a cookie to the next page, checked, then cleared. */
async function takeNewSecret(
  deps: WebhookEndpointDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  project: Project,
) {
  const value = request.cookies[NEW_SECRET_COOKIE];
  if (!value) return undefined;
  reply.clearCookie(NEW_SECRET_COOKIE, { path: secretCookie(project).path });
  const [id = '', secret = ''] = value.split('.');
  const endpoint = secret ? await deps.store.webhooks.get(project.id, id) : undefined;
  if (!endpoint || !(await deps.store.webhooks.isCurrentSecret(project.id, id, secret, deps.secrets())))
    return undefined;
  return { endpoint, secret };
}

function showSecretNext(reply: FastifyReply, project: Project, endpointId: string, secret: string) {
  reply.setCookie(NEW_SECRET_COOKIE, `${endpointId}.${secret}`, secretCookie(project));
  return reply.redirect(`/ui/projects/${project.id}/webhooks`, 303);
}

/** The form field a refusal names (`body.url` → `url`), the URL's when it names none. */
function fieldOf(path: string | undefined): FormField {
  const field = path?.replace(/^body\./, '');
  return field === 'events' || field === 'description' ? field : 'url';
}

/** The list, and the add form: parsed here, checked and saved by `createWebhookEndpoint`. */
function listRoutes(app: FastifyInstance, deps: WebhookEndpointDeps) {
  app.get<{ Querystring: { notice?: string } }>(
    '/projects/:projectId/webhooks',
    { schema: { hide: true } },
    async (request, reply) => {
      const project = await projectOf(deps.store, request);
      const notice = request.query.notice ? WEBHOOK_NOTICES[request.query.notice] : undefined;
      const created = await takeNewSecret(deps, request, reply, project);
      return listPage(deps, request, reply, project, {
        ...(notice ? { notice } : {}),
        ...(created ? { created } : {}),
      });
    },
  );

  app.post('/projects/:projectId/webhooks', { schema: { hide: true } }, async (request, reply) => {
    const project = await projectOf(deps.store, request);
    const values = (request.body ?? {}) as Record<string, unknown>;
    const parsed = webhookForm.safeParse(values);
    if (!parsed.success) {
      const errors: FormErrors = {};
      for (const issue of parsed.error.issues)
        errors[fieldOf(`body.${String(issue.path[0])}`)] ??= issue.message;
      return listPage(deps, request, reply, project, { errors, values });
    }
    try {
      const { endpoint, secret } = await createWebhookEndpoint(deps, project.id, parsed.data);
      request.log.info(
        { projectId: project.id, webhookId: endpoint.id },
        'webhook endpoint created in the dashboard',
      );
      return showSecretNext(reply, project, endpoint.id, secret);
    } catch (error) {
      if (!isAppError(error) || !error.details?.length) throw error;
      const detail = error.details[0];
      const errors = { [fieldOf(detail?.path)]: error.message };
      return listPage(deps, request, reply, project, { errors, values, status: statusOf(error.code) });
    }
  });
}

type Params = { projectId: string; webhookId: string };

/** Enable, disable, delete and rotate: each a form that redirects back with a notice. */
function actionRoutes(app: FastifyInstance, deps: WebhookEndpointDeps) {
  const action = (
    path: string,
    run: (project: Project, webhookId: string, reply: FastifyReply) => Promise<unknown>,
  ) =>
    app.post<{ Params: Params }>(
      `/projects/:projectId/webhooks/:webhookId/${path}`,
      { schema: { hide: true } },
      async (request, reply) => run(await projectOf(deps.store, request), request.params.webhookId, reply),
    );
  const back = (reply: FastifyReply, project: Project, notice: string) =>
    reply.redirect(`/ui/projects/${project.id}/webhooks?notice=${notice}`, 303);

  action('enable', async (project, webhookId, reply) => {
    await updateWebhookEndpoint(deps, project.id, webhookId, { enabled: true });
    return back(reply, project, 'enabled');
  });
  action('disable', async (project, webhookId, reply) => {
    await updateWebhookEndpoint(deps, project.id, webhookId, { enabled: false });
    return back(reply, project, 'disabled');
  });
  action('delete', async (project, webhookId, reply) => {
    await deleteWebhookEndpoint(deps, project.id, webhookId);
    return back(reply, project, 'deleted');
  });
  action('rotate', async (project, webhookId, reply) => {
    const { secret } = await rotateWebhookSecret(deps, project.id, webhookId);
    return showSecretNext(reply, project, webhookId, secret);
  });
}

function deliveryRow(base: string, delivery: WebhookDelivery, csrf: string): Html {
  const badge = delivery.status === 'succeeded' ? 'active' : delivery.status === 'failed' ? 'failed' : 'soon';
  return html`<tr><td>${delivery.event.type}<div class="hint"><code>${delivery.event.id}</code> · ${time(delivery.createdAt)}</div></td>
    <td><span class="badge ${badge}">${delivery.status}</span></td>
    <td>${attemptLines(delivery)}</td><td class="optional">${time(delivery.nextAttemptAt, '-')}</td>
    <td>${postButton(`${base}/deliveries/${delivery.id}/redeliver`, csrf, 'Redeliver')}</td></tr>`;
}

/** An endpoint's deliveries, a page at a time, and redelivery. */
function deliveryRoutes(app: FastifyInstance, deps: WebhookEndpointDeps) {
  app.get<{ Params: Params; Querystring: { cursor?: string; notice?: string } }>(
    '/projects/:projectId/webhooks/:webhookId',
    { schema: { hide: true } },
    async (request, reply) => {
      const project = await projectOf(deps.store, request);
      const endpoint = await getWebhookEndpoint(deps, project.id, request.params.webhookId);
      const cursor = typeof request.query.cursor === 'string' ? request.query.cursor : undefined;
      const page = await listWebhookDeliveries(deps, project.id, endpoint.id, { limit: 50, cursor });
      const notice = request.query.notice ? WEBHOOK_NOTICES[request.query.notice] : undefined;
      const base = `/ui/projects/${project.id}/webhooks/${endpoint.id}`;
      return sendPage(
        request,
        reply,
        `${project.name} webhook deliveries`,
        (csrf) => html`${projectHeader(project, 'webhooks')}
        <section><h2>Deliveries to ${endpoint.url}</h2><div class="pad">${stateBadge(endpoint)} <a href="/ui/projects/${project.id}/webhooks">All endpoints</a></div>
        ${
          page.deliveries.length === 0
            ? html`<div class="pad">No deliveries yet.</div>`
            : html`<div class="table-wrap"><table><thead><tr><th>Event</th><th>Status</th><th>Attempts</th><th class="optional">Next attempt</th><th><span class="sr-only">Actions</span></th></tr></thead>
              <tbody>${page.deliveries.map((delivery) => deliveryRow(base, delivery, csrf))}</tbody></table></div>`
        }
        ${page.nextCursor ? html`<div class="pad"><a href="${base}?cursor=${page.nextCursor}">Older deliveries</a></div>` : ''}</section>`,
        { flash: notice ? { kind: 'ok', text: notice } : null },
      );
    },
  );

  app.post<{ Params: Params & { deliveryId: string } }>(
    '/projects/:projectId/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
    { schema: { hide: true } },
    async (request, reply) => {
      const project = await projectOf(deps.store, request);
      const { webhookId, deliveryId } = request.params;
      await redeliverWebhookDelivery(deps, project.id, webhookId, deliveryId);
      return reply.redirect(`/ui/projects/${project.id}/webhooks/${webhookId}?notice=redelivered`, 303);
    },
  );
}

export const webhookPages: FastifyPluginAsync<DashboardOptions> = async (app, { config, store, secrets }) => {
  const deps: WebhookEndpointDeps = { config, store, secrets };
  listRoutes(app, deps);
  actionRoutes(app, deps);
  deliveryRoutes(app, deps);
};
