/**
 * The "Context repositories" section of a project's settings page (docs/architecture.md#the-runs-phases): the other
 * repositories its agent reads, listed with a form to add one and a button to remove each. The
 * checks are the CLI's (`operations/context-repositories.ts`); a refusal is shown next to its field.
 */
import type { ContextRepository } from '../domain/context-repository.js';
import { MAX_CONTEXT_REPOSITORIES } from '../domain/context-repository.js';
import { AppError } from '../domain/errors.js';
import { CODE_HOSTS } from '../domain/project.js';
import { fieldHint, type Html, html } from './html.js';
import type { FieldErrors } from './project-form.js';

/** The add form's fields as typed (never the token), to show again with their errors. */
export type ContextFormValues = Partial<Record<'name' | 'repository' | 'ref' | 'host', string>>;

/** What the section shows besides the list: the add form's last values and errors. */
export interface ContextSectionState {
  values?: ContextFormValues;
  errors?: FieldErrors;
}

/** The add form's body: its string fields, each cut at 20,000 characters; the rest left out. */
export function contextFormOf(body: unknown): ContextFormValues & { token?: string } {
  const read: Record<string, string> = {};
  if (body && typeof body === 'object')
    for (const key of ['name', 'repository', 'ref', 'host', 'token'])
      if (typeof (body as Record<string, unknown>)[key] === 'string')
        read[key] = ((body as Record<string, unknown>)[key] as string).slice(0, 20_000);
  return read;
}

/** The field a refusal of the shared checks names, and its message. */
export function contextErrorsOf(error: unknown): FieldErrors | null {
  if (!(error instanceof AppError) || error.code !== 'invalid_request') return null;
  const field = error.details?.[0]?.path ?? 'name';
  return { [field]: error.message };
}

export function contextSection(
  projectId: string,
  repositories: ContextRepository[],
  csrf: string,
  state: ContextSectionState,
): Html {
  const values = state.values ?? {};
  const errors = state.errors ?? {};
  const field = (name: keyof ContextFormValues, label: string, hint: string) =>
    html`<div><label for="c-${name}">${label}</label>
      <input type="text" id="c-${name}" name="${name}" value="${values[name] ?? ''}" aria-describedby="ch-${name}"${errors[name] ? html` aria-invalid="true"` : ''}>
      ${fieldHint(`ch-${name}`, errors[name], hint)}</div>`;
  const full = repositories.length >= MAX_CONTEXT_REPOSITORIES;
  return html`<section id="context-repositories"><h2>Context repositories</h2>
    <p class="hint">Other repositories the agent reads and never writes, such as the product’s source code: up to ${MAX_CONTEXT_REPOSITORIES}. Each is fetched before a run and read at the commit fetched then.</p>
    ${
      repositories.length === 0
        ? html`<div class="card pad">None yet.</div>`
        : html`<div class="table-wrap"><table><thead><tr><th>Name</th><th>Repository</th><th>Branch</th><th>Host</th><th>Token</th><th></th></tr></thead><tbody>
      ${repositories.map(
        (
          repository,
        ) => html`<tr><td>${repository.name}</td><td>${repository.repository}</td><td>${repository.ref ?? 'default branch'}</td><td>${repository.host}</td><td>${repository.host === 'local' ? '–' : repository.hasToken ? 'stored' : 'none'}</td>
        <td><form method="post" action="/ui/projects/${projectId}/context/${repository.name}/delete"><input type="hidden" name="_csrf" value="${csrf}"><button type="submit">Remove</button></form></td></tr>`,
      )}</tbody></table></div>`
    }
    ${
      full
        ? html`<p class="hint">The project has ${MAX_CONTEXT_REPOSITORIES}, the most it may; remove one to add another.</p>`
        : html`<form class="stack card pad" method="post" action="/ui/projects/${projectId}/context" novalidate>
      <input type="hidden" name="_csrf" value="${csrf}">
      ${field('name', 'Name', 'What the agent calls it: lower-case letters, digits and "-", e.g. code.')}
      ${field('repository', 'Repository', 'An absolute path on the server, or the https:// URL of the repository.')}
      ${field('ref', 'Branch', 'Empty: the repository’s default branch.')}
      <div><label for="c-host">Code host</label><select id="c-host" name="host" aria-describedby="ch-host"${errors.host ? html` aria-invalid="true"` : ''}><option value="">(from the repository)</option>${CODE_HOSTS.map(
        (host) =>
          html`<option value="${host}"${values.host === host ? html` selected` : ''}>${host}</option>`,
      )}</select>${fieldHint('ch-host', errors.host, 'Empty: local for a path; read from a github.com or gitlab.com URL.')}</div>
      <div><label for="c-token">Token</label>
        <input type="password" id="c-token" name="token" value="" autocomplete="off" aria-describedby="ch-token"${errors.token ? html` aria-invalid="true"` : ''}>
        ${fieldHint('ch-token', errors.token, 'For a private remote repository only. Write-only: stored encrypted and never shown again.')}</div>
      <div class="actions"><button type="submit">Add context repository</button></div>
    </form>`
    }</section>`;
}
