/**
 * What changed on a branch between two commits of a mirror, for the automations (docs/api.md,
 * code and content triggers): the commits in between with their files, and the unified diff. Read
 * from a local mirror only: no network, no credentials.
 */
import { runGit } from './run.js';

/** One commit between two heads. */
export interface ChangedCommit {
  id: string;
  message: string;
  files: string[];
}

/** At most this many commits are listed: a branch rewritten under the watch names a bounded few. */
const MAX_COMMITS = 200;
/** Past this many bytes of diff git's output is cut off (the prompt cuts far earlier, with a note). */
const MAX_DIFF_BYTES = 16 * 1024 * 1024;
const RECORD = '\x1e';
const FIELD = '\x1f';

/** The range `from..to`, or `to` alone (its own history) when there is no `from` or it is gone. */
async function range(gitDir: string, from: string | null, to: string): Promise<string[]> {
  if (from === null) return [to, '-1'];
  const known = await runGit(['cat-file', '-e', `${from}^{commit}`], { cwd: gitDir }).then(
    () => true,
    () => false,
  );
  return known ? [`${from}..${to}`] : [to, '-1'];
}

/** The commits after `from` up to `to`, newest first, each with the paths it touched. */
export async function commitsBetween(
  gitDir: string,
  from: string | null,
  to: string,
): Promise<ChangedCommit[]> {
  const { stdout } = await runGit(
    [
      'log',
      `--max-count=${MAX_COMMITS}`,
      `--format=${RECORD}%H${FIELD}%B${FIELD}`,
      '--name-only',
      '--no-renames',
      ...(await range(gitDir, from, to)),
      '--',
    ],
    { cwd: gitDir },
  );
  return stdout
    .toString('utf8')
    .split(RECORD)
    .filter((record) => record.length > 0)
    .map((record) => {
      const [id = '', message = '', names = ''] = record.split(FIELD);
      return {
        id,
        message: message.trim(),
        files: names.split('\n').filter((name) => name.length > 0),
      };
    });
}

/** The unified diff from `from` to `to` (from the empty tree when there is no `from`), and the paths in it. */
export async function diffBetween(
  gitDir: string,
  from: string | null,
  to: string,
): Promise<{ diff: string; files: string[] }> {
  const known =
    from !== null &&
    (await runGit(['cat-file', '-e', `${from}^{commit}`], { cwd: gitDir }).then(
      () => true,
      () => false,
    ));
  // Without the old head, the last commit's own change stands for the change (`show` reads a root too).
  const command = known ? ['diff', from as string, to] : ['show', '--format=', to];
  const [diff, names] = await Promise.all([
    runGit([...command, '--no-color', '--no-ext-diff', '--'], {
      cwd: gitDir,
      maxStdoutBytes: MAX_DIFF_BYTES,
    }),
    runGit([...command, '--name-only', '--no-renames', '--'], { cwd: gitDir }),
  ]);
  return {
    diff: diff.stdout.toString('utf8'),
    files: names.stdout
      .toString('utf8')
      .split('\n')
      .filter((name) => name.length > 0),
  };
}

/** The commit a branch of the mirror points at; null when it has no such branch. */
export async function branchHead(gitDir: string, branch: string): Promise<string | null> {
  return runGit(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], { cwd: gitDir }).then(
    ({ stdout }) => stdout.toString('utf8').trim() || null,
    () => null,
  );
}
