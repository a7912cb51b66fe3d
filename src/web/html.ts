/**
 * The dashboard's HTML toolkit: escaping in one place (every interpolated value is escaped unless
 * it is already `Html`), and the page shell with the navigation, the stylesheet and the script.
 */
import { assetUrl } from './assets.js';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/** A tagged template whose interpolations are escaped unless they are already `Html`. */
export class Html {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    const parts = Array.isArray(value) ? value : [value];
    for (const part of parts) {
      if (part === null || part === undefined || part === false) continue;
      out += part instanceof Html ? part.value : escapeHtml(String(part));
    }
    out += strings[i + 1] ?? '';
  });
  return new Html(out);
}

export interface PageOptions {
  /** The signed-in view: navigation and the sign-out form (which needs the CSRF token). */
  csrf?: string;
  flash?: { kind: 'ok' | 'error' | 'warn'; text: string } | null;
}

/** A full page. Everything is served from this origin, so the CSP can forbid inline script and style. */
export function page(title: string, body: Html, options: PageOptions = {}): string {
  const nav = options.csrf
    ? html`<header class="top"><nav aria-label="Main">
        <a href="/ui/projects">agentjobs</a><a href="/ui/projects">Projects</a><a href="/ui/keys">Instance keys</a><span class="spacer"></span>
        <form method="post" action="/ui/sign-out"><input type="hidden" name="_csrf" value="${options.csrf}"><button type="submit">Sign out</button></form>
      </nav></header>`
    : '';
  const flash = options.flash
    ? html`<div class="flash ${options.flash.kind}" role="${options.flash.kind === 'error' ? 'alert' : 'status'}">${options.flash.text}</div>`
    : '';
  return `<!doctype html>\n${html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title} · agentjobs</title><link rel="icon" type="image/svg+xml" href="${assetUrl('favicon.svg')}"><link rel="stylesheet" href="${assetUrl('dashboard.css')}"><script src="${assetUrl('dashboard.js')}" defer></script></head><body>${nav}<main>${flash}${body}</main></body></html>`}`;
}

/** A time as people read it, in UTC, with the exact value for machines. */
export const time = (iso: string | null, empty = 'never'): Html =>
  iso ? html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>` : html`${empty}`;

/**
 * A URL for an `href` that came from outside (a code host's pull request URL, event data): only
 * http(s). Escaping keeps it inside the attribute; this keeps `javascript:` out of it.
 */
export const safeHref = (url: unknown): string =>
  typeof url === 'string' && /^https?:\/\//i.test(url) ? url : '#';

/** A text cut to `max` characters, for lists and activity lines. */
export const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/**
 * A field's hint, led by what is wrong with the field when something is: in the error colour, on
 * its own line. The field names `id` in `aria-describedby` (and says `aria-invalid` on an error),
 * so a screen reader reads the error with the field.
 */
export const fieldHint = (id: string, error: string | undefined, hint: string | Html): Html =>
  html`<div class="hint" id="${id}">${error ? html`<strong class="field-error">${error}</strong>` : ''}${hint}</div>`;
