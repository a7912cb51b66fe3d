/**
 * The "Code-host webhooks" section of a project's settings (docs/api.md#code-host-webhooks
 * webhook): the URL each host sends its hooks to, what to tick on each host, and the button that
 * makes or rotates the hook secret, which the page after it shows once (the answer to that POST
 * itself, never a cookie or a later page).
 */
import { HOOK_SETUP, type HookSetup, hookUrl } from '../domain/hook-secret.js';
import type { Project } from '../domain/project.js';
import { type Html, html } from './html.js';

export interface HookSectionOptions {
  project: Project;
  csrf: string;
  publicUrl: string;
  hasSecret: boolean;
  /** The secret just made: shown here, this once. */
  newSecret?: string;
}

/**
 * Only what applies to the project's host: a local project's repository is on this server and no
 * code host sends it webhooks, so it gets one line instead of every host's steps.
 */
export function hookSection(options: HookSectionOptions): Html {
  const { project } = options;
  const setups = HOOK_SETUP.filter((setup) => setup.host === project.host);
  if (setups.length === 0)
    return html`<section id="code-host-webhooks"><h2>Code-host webhooks</h2><div class="pad">
    <p class="hint">Not needed: this project's repository is on this server (code host local), so no code host sends webhooks. Set the code host above and save to see its steps.</p></div></section>`;
  return hostHookSection(options, setups);
}

function hostHookSection(
  { project, csrf, publicUrl, hasSecret, newSecret }: HookSectionOptions,
  setups: readonly HookSetup[],
): Html {
  const made = hasSecret || newSecret !== undefined;
  return html`<section id="code-host-webhooks"><h2>Code-host webhooks</h2><div class="pad">
    <p>Pushes, merged pull requests and comments reach the project's automations at once when the code host sends its webhooks here. Each host proves it knows the project's hook secret; deliveries without it are refused.</p>
    ${
      newSecret
        ? html`<div class="created-key"><div class="flash warn" role="alert">Copy this hook secret now. It will not be shown again${hasSecret ? '; the old one no longer works' : ''}.</div>
          <div class="secret"><code id="new-hook-secret">${newSecret}</code><button type="button" data-copy="new-hook-secret">Copy</button></div></div>`
        : html`<p class="hint">${made ? 'A hook secret is set (stored encrypted; it cannot be shown again).' : 'No hook secret yet: the hosts’ deliveries are refused until you make one.'}</p>`
    }
    <form method="post" action="/ui/projects/${project.id}/hook-secret" class="inline">
      <input type="hidden" name="_csrf" value="${csrf}">
      <button type="submit"${made ? '' : html` class="primary"`}>${made ? 'Rotate the hook secret' : 'Make a hook secret'}</button>
    </form>
    ${setups.map(
      (setup) => html`<h3>${setup.title}</h3>
        <div class="secret"><code id="hook-url-${setup.host}">${hookUrl(publicUrl, project.id, setup.host)}</code><button type="button" data-copy="hook-url-${setup.host}">Copy</button></div>
        <ol>${setup.steps.map((step) => html`<li>${step}</li>`)}</ol>`,
    )}
  </div></section>`;
}
