import type { EventType, JobEvent } from '../domain/events.js';
import { clip, type Html, html, safeHref, time } from './html.js';

const str = (value: unknown) =>
  typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);

/** Inputs that name a file or folder: shown as the line's headline. */
const PATH_KEYS = new Set(['path', 'from', 'to']);
const PREVIEW_LINES = 8;

/** The first lines of a long text (a file's content, an edit's old and new text), as text. */
function preview(text: string): string {
  const lines = text.split('\n');
  const shown = lines.slice(0, PREVIEW_LINES).map((line) => clip(line, 200));
  const rest = lines.length - shown.length;
  return `${shown.join('\n')}${rest > 0 ? `\n… ${rest} more line${rest === 1 ? '' : 's'}` : ''}`;
}

/**
 * A tool's input as a person reads it: the paths first, short values inline, and multi-line
 * text (what `write_file` writes, what `edit_file` replaces) as the text itself, cut short.
 */
function toolInput(input: unknown): Html {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return html`${clip(str(input), 300)}`;
  const entries = Object.entries(input as Record<string, unknown>);
  const paths = entries.filter(([key, value]) => PATH_KEYS.has(key) && typeof value === 'string');
  const texts = entries.filter(
    ([key, value]) =>
      !PATH_KEYS.has(key) && typeof value === 'string' && (value.includes('\n') || value.length > 100),
  );
  const rest = entries.filter(
    ([key]) => !paths.some((e) => e[0] === key) && !texts.some((e) => e[0] === key),
  );
  const value = (item: unknown) =>
    Array.isArray(item) ? `${item.length} item${item.length === 1 ? '' : 's'}` : clip(str(item), 100);
  return html`${paths.map(([, path], i) => html`${i ? ' → ' : ''}<code>${str(path)}</code>`)}${rest.map(
    // A list (the plan's items) says how long it is; its key would only repeat that.
    ([key, item]) =>
      Array.isArray(item)
        ? html` ${value(item)}`
        : html` <span class="hint">${key.replace('_', ' ')}</span> ${value(item)}`,
  )}${texts.map(
    ([key, text]) =>
      html`<div class="preview"><span class="hint">${key.replace('_', ' ')}</span><pre>${preview(String(text))}</pre></div>`,
  )}`;
}

/** One line of the agent's activity, rendered on the server (also for the live stream). */
export function renderEvent(event: JobEvent): Html {
  const line = (kind: string, body: Html | string, bad = false) =>
    html`<li data-seq="${event.seq}"><span class="kind">${kind}</span> <span${bad ? html` class="bad"` : ''}>${body}</span> <span class="hint">${time(event.at)}</span></li>`;
  switch (event.type) {
    case 'status': {
      const { status, phase, prLink } = event.data;
      return line(
        'status',
        html`<strong>${status}</strong>${phase ? ` · ${phase}` : ''}${typeof prLink === 'string' ? html` · <a href="${safeHref(prLink)}">pull request</a>` : ''}`,
      );
    }
    case 'phase': {
      const { phase, reason } = event.data;
      return line('phase', `${phase}${reason ? ` (${reason.replace('_', ' ')})` : ''}`);
    }
    case 'message':
      return line(event.data.role === 'user' ? 'you' : 'agent', clip(event.data.text, 2000));
    case 'tool_call':
      return line('tool', html`<strong>${event.data.tool}</strong> ${toolInput(event.data.input)}`);
    case 'tool_result': {
      const { ok, tool, summary } = event.data;
      return line(ok ? 'result' : 'failed', html`<code>${tool}</code> ${clip(summary, 400)}`, !ok);
    }
    case 'plan':
      return line('plan', `updated (${event.data.items.length} items)`);
    case 'setup': {
      const { status, message } = event.data;
      return line('setup', `${status} · ${clip(message, 400)}`, status === 'failed');
    }
    case 'check': {
      const count = event.data.results.reduce((sum, result) => sum + result.problems.length, 0);
      return line(
        'checks',
        `${event.data.status}${count ? ` · ${count} problem${count === 1 ? '' : 's'}` : ''}`,
        event.data.status === 'failed',
      );
    }
    case 'commit': {
      const { sha, branch, files, merge } = event.data;
      if (merge) {
        const { base, conflicts } = merge;
        const outcome = conflicts.length ? `conflicts left to resolve in ${conflicts.join(', ')}` : 'clean';
        return line(
          'merge',
          html`<code>${sha.slice(0, 10)}</code> merged ${base} into ${branch} · ${outcome}`,
        );
      }
      return line('commit', html`<code>${sha.slice(0, 10)}</code> on ${branch} · ${files.length} files`);
    }
    case 'pull_request': {
      const link = html`<a href="${safeHref(event.data.url)}">${event.data.url}</a>`;
      const { data } = event;
      // A close or a label says what happened; a refusal is shown as one.
      if (!('action' in data)) return line('pull req.', link);
      return line('pull req.', html`${link}: ${data.message}`, data.action.endsWith('_failed'));
    }
    case 'usage':
      // One after every step: the running total is in the job's summary, which each one refreshes.
      return html``;
    case 'context':
      return line('context', `compacted: ${event.data.replacedResults} older tool results replaced by notes`);
    case 'error':
      return line('error', `${event.data.code}: ${clip(event.data.message, 400)}`, true);
  }
}

/** Events after which the job's summary (status, plan, diff, pull request) is worth fetching again. */
export const REFRESHES = new Set<EventType>([
  'status',
  'phase',
  'plan',
  'setup',
  'check',
  'commit',
  'pull_request',
  'error',
  'usage',
]);
