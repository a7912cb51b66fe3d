/** The parts of the API keys pages: a project's keys and the instance keys look alike. */
import type { ApiKey } from '../domain/api-key.js';
import { DEFAULT_KEY_EXPIRY_DAYS, KEY_SCOPES } from '../domain/keys.js';
import type { Project } from '../domain/project.js';
import type { InputError } from '../operations/input.js';
import { type KeyInput, keyStatus } from '../operations/keys.js';
import { fieldHint, type Html, html, time } from './html.js';

const DAY_MS = 86_400_000;
export const EXPIRY_CHOICES = ['7', '30', '60', '90', 'never'] as const;
/** A key this close to its expiry gets the "expires soon" badge. */
const SOON_MS = 7 * DAY_MS;

/**
 * Whose keys a page manages: one project's, or the instance's (`project` null), whose keys work
 * on every project.
 */
export interface KeyOwner {
  project: Project | null;
  /** The page's path; forms post under it. */
  path: string;
}

export const projectOwner = (project: Project): KeyOwner => ({
  project,
  path: `/ui/projects/${project.id}/keys`,
});
export const INSTANCE_OWNER: KeyOwner = { project: null, path: '/ui/keys' };

export const asList = (value: unknown) => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

export type KeyFormErrors = Partial<Record<'name' | 'scopes' | 'expires' | 'ips', string>>;

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/**
 * The create form as the key operation takes it (`operations/keys.ts`), for `projectId`: the form only
 * reads its fields; the rules are the operation's. An expiry that is none of the choices is
 * passed on as no valid time, for the operation to refuse.
 */
export function readKeyForm(body: unknown, projectId: string | null): KeyInput {
  const form = (body ?? {}) as Record<string, unknown>;
  const expires = text(form.expires);
  const days = (EXPIRY_CHOICES as readonly string[]).includes(expires) ? Number(expires) : Number.NaN;
  return {
    projectId,
    name: text(form.name),
    scopes: asList(form.scopes).map(text),
    lifetimeSeconds: expires === 'never' ? null : days * 86_400,
    ipAllowlist: text(form.ips).split(/[\s,]+/),
  };
}

/** The operation's refusal, next to the form's fields. */
export function keyFormErrors(error: InputError): KeyFormErrors {
  const errors: KeyFormErrors = {};
  for (const { field, message } of error.problems) {
    const name = field === 'ipAllowlist' ? 'ips' : field;
    if (name === 'name' || name === 'scopes' || name === 'expires' || name === 'ips')
      errors[name] ??= message;
  }
  return errors;
}

function badge(key: ApiKey, now: number): Html {
  const status = keyStatus(key, now);
  if (status === 'active' && key.expiresAt && Date.parse(key.expiresAt) - now <= SOON_MS)
    return html`<span class="badge soon">expires soon</span>`;
  return html`<span class="badge ${status}">${status}</span>`;
}

/** A key's row; with `owner`, a revoke button that posts under the owner's page. */
function keyRow(key: ApiKey, now: number, revoke?: { owner: KeyOwner; csrf: string }): Html {
  const button =
    revoke && !key.revokedAt
      ? html`<details class="confirm"><summary class="button danger" role="button">Revoke</summary>
        <form method="post" action="${revoke.owner.path}/${key.id}/revoke">
          <input type="hidden" name="_csrf" value="${revoke.csrf}">
          <p>Requests with “${key.name}” will be refused at once${key.projectId === null ? ', on every project' : ''}.</p>
          <button class="danger" type="submit">Yes, revoke “${key.name}”</button></form></details>`
      : '';
  return html`<tr><td>${key.name}</td><td><code>${key.prefix}…</code></td><td>${key.scopes.join(', ')}</td>
    <td class="optional">${time(key.createdAt)}</td><td class="optional">${time(key.lastUsedAt)}</td>
    <td>${badge(key, now)}${key.expiresAt && !key.revokedAt ? html`<div class="hint">until ${time(key.expiresAt)}</div>` : ''}</td><td>${button}</td></tr>`;
}

/** A table of keys, or `empty` when there are none; rows can be revoked when `revoke` is given. */
export function keyTable(keys: ApiKey[], empty: string, revoke?: { owner: KeyOwner; csrf: string }): Html {
  if (keys.length === 0) return html`<div class="pad">${empty}</div>`;
  const now = Date.now();
  return html`<div class="table-wrap"><table><thead><tr><th>Name</th><th>Prefix</th><th>Scopes</th><th class="optional">Created</th><th class="optional">Last used</th><th>Status</th><th><span class="sr-only">Actions</span></th></tr></thead>
    <tbody>${keys.map((key) => keyRow(key, now, revoke))}</tbody></table></div>`;
}

/** The key just made, shown this once. */
export function createdKey(owner: KeyOwner, created: { key: string; record: ApiKey }): Html {
  const where = owner.project
    ? html`<code>/v2/agent/${owner.project.id}/job</code>`
    : html`<code>/v2/agent/{projectId}/job</code> of any project`;
  return html`<section class="created-key"><h2>New key “${created.record.name}”</h2><div class="pad">
    <div class="flash warn" role="alert">Copy this key now. It will not be shown again: only its hash is stored.</div>
    <div class="secret"><code id="new-key">${created.key}</code><button type="button" data-copy="new-key">Copy</button></div>
    <p class="hint">Send it as <code>Authorization: Bearer …</code> to ${where}.</p></div></section>`;
}

/** The create form, filled with what was posted when it was refused. */
export function createForm(
  owner: KeyOwner,
  csrf: string,
  errors: KeyFormErrors,
  values: Record<string, unknown>,
): Html {
  const chosenScopes = values.scopes === undefined ? ['read', 'write'] : asList(values.scopes);
  const expires = typeof values.expires === 'string' ? values.expires : String(DEFAULT_KEY_EXPIRY_DAYS);
  const title = owner.project ? 'Create a key' : 'Create an instance key';
  return html`<section><h2>${title}</h2>
    <form class="stack" method="post" action="${owner.path}">
      <input type="hidden" name="_csrf" value="${csrf}">
      <div><label for="k-name">Name</label><input type="text" id="k-name" name="name" value="${typeof values.name === 'string' ? values.name : ''}" required aria-describedby="h-k-name"${errors.name ? html` aria-invalid="true"` : ''}>
        ${fieldHint('h-k-name', errors.name, 'What or who uses it, e.g. “CI docs bot”.')}</div>
      <fieldset><legend>Scopes</legend>${KEY_SCOPES.map(
        (scope) =>
          html`<span class="choice"><input type="checkbox" id="k-scope-${scope}" name="scopes" value="${scope}"${chosenScopes.includes(scope) ? html` checked` : ''}><label for="k-scope-${scope}">${scope}</label></span>`,
      )}${fieldHint('h-k-scopes', errors.scopes, 'read: get jobs; write: create jobs, follow up, archive.')}</fieldset>
      <div><label for="k-expires">Expires</label><select id="k-expires" name="expires" aria-describedby="h-k-expires"${errors.expires ? html` aria-invalid="true"` : ''}>${EXPIRY_CHOICES.map(
        (c) =>
          html`<option value="${c}"${expires === c ? html` selected` : ''}>${c === 'never' ? 'never' : `in ${c} days`}</option>`,
      )}</select>${fieldHint('h-k-expires', errors.expires, '')}</div>
      <div><label for="k-ips">IP allowlist</label><textarea id="k-ips" name="ips" rows="2" aria-describedby="h-k-ips"${errors.ips ? html` aria-invalid="true"` : ''}>${typeof values.ips === 'string' ? values.ips : ''}</textarea>
        ${fieldHint('h-k-ips', errors.ips, 'Optional: addresses or CIDR ranges, one per line. Empty: any address.')}</div>
      <div class="actions"><button class="primary" type="submit">Create key</button></div>
    </form></section>`;
}

/** The top of the instance keys page. */
export const instanceHeader = (): Html =>
  html`<div class="crumbs"><a href="/ui/projects">Projects</a> /</div>
    <h1>Instance keys</h1>
    <div class="meta">Keys that work on every project, like the hosted API’s organisation keys: the same scopes, expiry, IP allowlist and revocation as a project’s keys.</div>`;
