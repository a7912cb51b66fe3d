/** The top of every page of a project: its name and tabs, and the project the URL names. */
import type { FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';
import type { Project } from '../domain/project.js';
import type { Store } from '../store/store.js';
import { type Html, html } from './html.js';

export type ProjectTab = 'jobs' | 'automations' | 'keys' | 'webhooks' | 'pulls' | 'settings';

/** The project's name and its tabs, on every page of a project. */
export function projectHeader(project: Project, current: ProjectTab): Html {
  const tab = (name: ProjectTab, label: string) =>
    html`<a href="/ui/projects/${project.id}/${name}"${current === name ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<div class="crumbs"><a href="/ui/projects">Projects</a> /</div>
    <h1>${project.name}</h1>
    <div class="meta">${project.repository} · ${project.host} · base ${project.baseBranch}</div>
    <nav class="tabs" aria-label="Project">${tab('jobs', 'Jobs')}${tab('automations', 'Automations')}${tab('keys', 'API keys')}${tab('webhooks', 'Webhooks')}${project.host === 'local' ? tab('pulls', 'Pull requests') : ''}${tab('settings', 'Settings')}</nav>`;
}

/** The project of the URL, or a 404 page. */
export async function projectOf(store: Store, request: FastifyRequest): Promise<Project> {
  const { projectId } = request.params as { projectId: string };
  const project = /^[\w-]{1,100}$/.test(projectId) ? await store.projects.get(projectId) : undefined;
  if (!project) throw new AppError('not_found', 'There is no such project.');
  return project;
}

/** Fixed notices named in a redirect's query: nothing a visitor types is echoed into a page. */
export const NOTICES: Record<string, string> = {
  created: 'Project created. Make an API key for it on the API keys tab.',
  saved: 'Settings saved.',
  'context-added': 'Context repository added.',
  'context-removed': 'Context repository removed.',
  'setup-accepted': 'Accepted: the next setup runs the changed setup inputs.',
  'slack-added': 'Added to the project’s Slack.',
  'slack-removed': 'Removed from the project’s Slack.',
  'linear-set': 'Linear secret set.',
  'linear-removed': 'Linear secret removed: Linear’s deliveries are refused.',
};
