/**
 * The "Linear" section of a project's settings (docs/automations.md, "Linear"): the URL to give
 * Linear's webhook, whether a Linear secret is set, and the form that sets (or removes) it through
 * the same operation as the CLI and the API (`operations/linear-secret.ts`). The secret is never
 * shown back: the field is a password field, and always empty.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { clearLinearSecret, setLinearSecret } from '../operations/linear-secret.js';
import { type Html, html } from './html.js';
import type { DashboardOptions } from './layout.js';
import { projectOf } from './project-header.js';

/** The section; `hasSecret` says whether Linear's deliveries are taken now. */
export function linearSection(projectId: string, hasSecret: boolean, csrf: string, publicUrl: string): Html {
  const url = `${publicUrl.replace(/\/+$/, '')}/v2/hooks/${encodeURIComponent(projectId)}/linear`;
  // Folded until a secret is set: most projects take no issues from Linear, and the steps are long.
  return html`<section id="linear"><h2>Linear</h2><div class="pad">
    <p class="hint">${hasSecret ? 'A Linear secret is set (stored encrypted; it cannot be shown again).' : 'No Linear secret: Linear’s deliveries are refused until you set one.'}</p>
    <details${hasSecret ? html` open` : ''}><summary>${hasSecret ? 'Linear’s webhook and its secret' : 'Take issues from Linear'}</summary>
    <p>Issues created or labelled in a Linear team start the project's issue automations whose source is Linear. In Linear: Settings → API → Webhooks → New webhook, this URL, data change events Issues; then paste the signing secret Linear shows here.</p>
    <div class="secret"><code id="linear-url">${url}</code><button type="button" data-copy="linear-url">Copy</button></div>
    <form method="post" action="/ui/projects/${projectId}/linear-secret" class="stack">
      <input type="hidden" name="_csrf" value="${csrf}">
      <div><label for="linear-secret">Signing secret</label><input type="password" id="linear-secret" name="secret" autocomplete="off" required></div>
      <div class="actions"><button type="submit">${hasSecret ? 'Replace the Linear secret' : 'Set the Linear secret'}</button></div>
    </form>
    ${
      hasSecret
        ? html`<form method="post" action="/ui/projects/${projectId}/linear-secret/remove" class="inline">
      <input type="hidden" name="_csrf" value="${csrf}"><button type="submit">Remove the Linear secret</button></form>`
        : ''
    }
    </details>
  </div></section>`;
}

const back = (reply: FastifyReply, projectId: string, notice: string) =>
  reply.redirect(`/ui/projects/${projectId}/settings?notice=${notice}#linear`, 303);

/** Setting and removing the Linear secret from the settings page. */
export const projectLinearPages: FastifyPluginAsync<DashboardOptions> = async (app, { store, secrets }) => {
  app.post('/projects/:projectId/linear-secret', { schema: { hide: true } }, async (request, reply) => {
    const project = await projectOf(store, request);
    const secret = (request.body as { secret?: unknown } | undefined)?.secret;
    await setLinearSecret({ store, secrets }, project.id, typeof secret === 'string' ? secret : '');
    request.log.info({ projectId: project.id }, 'Linear secret set in the dashboard');
    return back(reply, project.id, 'linear-set');
  });
  app.post(
    '/projects/:projectId/linear-secret/remove',
    { schema: { hide: true } },
    async (request, reply) => {
      const project = await projectOf(store, request);
      await clearLinearSecret({ store, secrets }, project.id);
      request.log.info({ projectId: project.id }, 'Linear secret removed in the dashboard');
      return back(reply, project.id, 'linear-removed');
    },
  );
};
