import { runGit } from '../git/run.js';
import { type Html, html } from './html.js';

const MAX_DIFF_BYTES = 1024 * 1024;

export interface Changes {
  commits: { sha: string; subject: string }[];
  diff: string;
  truncated: boolean;
}

/** Commits in `head` that `base` lacks, and the diff from their merge base, read from `repository`. */
export async function readChanges(repository: string, base: string, head: string): Promise<Changes> {
  const [log, diff] = await Promise.all([
    runGit(['log', '--no-color', '--format=%h%x09%s', `${base}..${head}`], {
      cwd: repository,
      timeoutMs: 10_000,
    }),
    runGit(['diff', '--no-color', '--no-ext-diff', `${base}...${head}`], {
      cwd: repository,
      timeoutMs: 10_000,
      maxStdoutBytes: MAX_DIFF_BYTES,
    }),
  ]);
  const commits = log.stdout
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [sha = '', ...subject] = line.split('\t');
      return { sha, subject: subject.join('\t') };
    });
  return { commits, diff: diff.stdout.toString('utf8'), truncated: diff.truncated };
}

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
