/** A branch's diff as the dashboard renders it; `git/diff.ts` reads it. */
import type { Changes } from '../git/diff.js';
import { type Html, html } from './html.js';

const kindOf = (line: string) =>
  line.startsWith('diff --git')
    ? 'file'
    : line.startsWith('@@')
      ? 'hunk'
      : line.startsWith('+') && !line.startsWith('+++')
        ? 'add'
        : line.startsWith('-') && !line.startsWith('---')
          ? 'del'
          : '';

/** A unified diff as lines coloured by kind; every line escaped. */
export function renderDiff({ diff, truncated }: Pick<Changes, 'diff' | 'truncated'>): Html {
  if (!diff.trim()) return html`<div class="pad">No changes.</div>`;
  const lines = diff.replace(/\n$/, '').split('\n');
  return html`<pre class="diff">${lines.map((line) => html`<span class="${kindOf(line)}">${line || ' '}</span>`)}</pre>${truncated ? html`<div class="pad">The diff is longer than 1 MiB; the rest is not shown.</div>` : ''}`;
}
