/**
 * The "Slack" section of a project's settings (docs/slack.md): the channels whose mentions ask the
 * project and the Slack users who alone may ask it, with forms to add and remove each — what
 * `agentjobs project slack add|remove` does on the command line.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { AppError } from '../domain/errors.js';
import { SLACK_CHANNEL_ID, SLACK_USER_ID } from '../domain/slack.js';
import { type Html, html } from './html.js';
import type { DashboardOptions } from './layout.js';
import { projectOf } from './project-header.js';

export function slackSection(
  projectId: string,
  mapping: { channels: string[]; users: string[] },
  csrf: string,
): Html {
  const row = (kind: 'channel' | 'user', id: string) =>
    html`<li><code>${id}</code> <form method="post" action="/ui/projects/${projectId}/slack/remove" class="inline">
      <input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="${kind}" value="${id}">
      <button type="submit">Remove</button></form></li>`;
  return html`<section id="slack"><h2>Slack</h2><div class="pad">
    <p>A mention of the Slack app in a mapped channel asks this project for a job; replies in its thread are follow-ups. With users listed, only they may ask; otherwise anyone in a mapped channel may. Setting up the Slack app: <code>docs/slack.md</code>.</p>
    <h3>Channels</h3>
    ${mapping.channels.length ? html`<ul>${mapping.channels.map((id) => row('channel', id))}</ul>` : html`<p class="hint">No channel yet: mentions ask nothing.</p>`}
    <h3>Users who may ask</h3>
    ${mapping.users.length ? html`<ul>${mapping.users.map((id) => row('user', id))}</ul>` : html`<p class="hint">None listed: anyone in a mapped channel may ask.</p>`}
    <form method="post" action="/ui/projects/${projectId}/slack" class="inline">
      <input type="hidden" name="_csrf" value="${csrf}">
      <label>Channel id <input name="channel" placeholder="C0123ABCD" pattern="[CGD][A-Z0-9]{2,30}"></label>
      <label>or user id <input name="user" placeholder="U0123ABCD" pattern="[UW][A-Z0-9]{2,30}"></label>
      <button type="submit">Add</button>
    </form>
  </div></section>`;
}

/** The form's channel and user, each checked. @throws AppError `invalid_request`, shown as the dashboard's error page. */
function formIds(body: unknown): { channel?: string; user?: string } {
  const fields = (body ?? {}) as Record<string, unknown>;
  const value = (name: string) => (typeof fields[name] === 'string' ? (fields[name] as string).trim() : '');
  const channel = value('channel');
  const user = value('user');
  const refuse = (message: string) => {
    throw new AppError('invalid_request', message);
  };
  if (!channel && !user) refuse('Give a channel id or a user id.');
  if (channel && !SLACK_CHANNEL_ID.test(channel))
    refuse(`"${channel}" is no Slack channel id (like C0123ABCD).`);
  if (user && !SLACK_USER_ID.test(user)) refuse(`"${user}" is no Slack user id (like U0123ABCD).`);
  return { ...(channel ? { channel } : {}), ...(user ? { user } : {}) };
}

const back = (reply: FastifyReply, projectId: string, notice: string) =>
  reply.redirect(`/ui/projects/${projectId}/settings?notice=${notice}#slack`, 303);

export const projectSlackPages: FastifyPluginAsync<DashboardOptions> = async (app, { store }) => {
  app.post('/projects/:projectId/slack', { schema: { hide: true } }, async (request, reply) => {
    const project = await projectOf(store, request);
    const ids = formIds(request.body);
    if (ids.channel && !(await store.slack.addChannel(project.id, ids.channel)))
      throw new AppError(
        'invalid_request',
        `Channel ${ids.channel} asks another project already: remove it there first.`,
      );
    if (ids.user) await store.slack.addUser(project.id, ids.user);
    request.log.info({ projectId: project.id, ...ids }, 'Slack mapping added in the dashboard');
    return back(reply, project.id, 'slack-added');
  });
  app.post('/projects/:projectId/slack/remove', { schema: { hide: true } }, async (request, reply) => {
    const project = await projectOf(store, request);
    const ids = formIds(request.body);
    if (ids.channel) await store.slack.removeChannel(project.id, ids.channel);
    if (ids.user) await store.slack.removeUser(project.id, ids.user);
    return back(reply, project.id, 'slack-removed');
  });
};
