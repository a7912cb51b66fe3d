import type { JobEvent } from '../domain/events.js';
import { formatUsd } from '../domain/job.js';
import { clip, type Html, html, safeHref, time } from './html.js';

const str = (value: unknown) =>
  typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);

/** One line of the agent's activity, rendered on the server (also for the live stream). */
export function renderEvent(event: JobEvent): Html {
  const d = event.data;
  const line = (kind: string, body: Html | string, bad = false) =>
    html`<li data-seq="${event.seq}"><span class="kind">${kind}</span> <span${bad ? html` class="bad"` : ''}>${body}</span> <span class="hint">${time(event.at)}</span></li>`;
  switch (event.type) {
    case 'status':
      return line(
        'status',
        html`<strong>${str(d.status)}</strong>${d.phase ? ` · ${str(d.phase)}` : ''}${typeof d.prLink === 'string' ? html` · <a href="${safeHref(d.prLink)}">pull request</a>` : ''}`,
      );
    case 'phase':
      return line('phase', `${str(d.phase)}${d.reason ? ` (${str(d.reason).replace('_', ' ')})` : ''}`);
    case 'message':
      return line(d.role === 'user' ? 'you' : 'agent', clip(str(d.text), 2000));
    case 'tool_call':
      return line('tool', html`<code>${str(d.tool)}</code> ${clip(str(d.input), 300)}`);
    case 'tool_result':
      return line(
        d.ok === false ? 'failed' : 'result',
        html`<code>${str(d.tool)}</code> ${clip(str(d.summary), 400)}`,
        d.ok === false,
      );
    case 'plan':
      return line('plan', `updated (${Array.isArray(d.items) ? d.items.length : 0} items)`);
    case 'check': {
      const count = Array.isArray(d.results)
        ? (d.results as { problems?: unknown[] }[]).reduce((sum, r) => sum + (r.problems?.length ?? 0), 0)
        : 0;
      return line(
        'checks',
        `${str(d.status)}${count ? ` · ${count} problem${count === 1 ? '' : 's'}` : ''}`,
        d.status === 'failed',
      );
    }
    case 'commit':
      return line(
        'commit',
        html`<code>${str(d.sha).slice(0, 10)}</code> on ${str(d.branch)} · ${Array.isArray(d.files) ? d.files.length : 0} files`,
      );
    case 'pull_request':
      return line('pull req.', html`<a href="${safeHref(d.url)}">${str(d.url)}</a>`);
    case 'usage':
      return line(
        'usage',
        `${str(d.inputTokens)} tokens in (${str(d.cachedInputTokens ?? 0)} cached), ${str(d.outputTokens)} out, ${formatUsd(typeof d.costUsd === 'number' ? d.costUsd : null)}`,
      );
    case 'context':
      return line('context', `compacted: ${str(d.replacedResults)} older tool results replaced by notes`);
    case 'error':
      return line('error', `${str(d.code)}: ${clip(str(d.message), 400)}`, true);
    default:
      return line(event.type, clip(JSON.stringify(d), 400));
  }
}

/** Events after which the job's summary (status, plan, diff, pull request) is worth fetching again. */
export const REFRESHES = new Set(['status', 'phase', 'plan', 'check', 'commit', 'pull_request', 'error']);
