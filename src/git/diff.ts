/** What a branch changed against its base: its commits and the diff, as the dashboard shows them. */
import { runGit } from './run.js';

const MAX_DIFF_BYTES = 1024 * 1024;

/** A branch's commits that its base lacks, and their diff (cut at a size limit). */
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
