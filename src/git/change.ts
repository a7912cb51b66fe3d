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

/** What an id from a code host's event must look like before it reaches git (a full or short hex id). */
const OBJECT_ID = /^[0-9a-f]{7,64}$/i;

/**
 * Which of `ids` the mirror has as commits, asked of one `git cat-file --batch-check` for all of
 * them. An id that is not hex is never asked and counts as absent.
 */
export async function commitsPresent(gitDir: string, ids: readonly string[]): Promise<Set<string>> {
  const asked = [...new Set(ids)].filter((id) => OBJECT_ID.test(id));
  if (asked.length === 0) return new Set();
  const { stdout } = await runGit(['cat-file', '--batch-check=%(objecttype)'], {
    cwd: gitDir,
    input: asked.map((id) => `${id}^{commit}\n`).join(''),
  });
  // One answer line per question, in order: the type, or "<question> missing".
  const answers = stdout.toString('utf8').split('\n');
  return new Set(asked.filter((_, index) => answers[index] === 'commit'));
}

/** The commits after `from` up to `to`, newest first, each with the paths it touched. */
export async function commitsBetween(
  gitDir: string,
  from: string | null,
  to: string,
): Promise<ChangedCommit[]> {
  const known = from !== null && (await commitsPresent(gitDir, [from])).has(from);
  return logBetween(gitDir, known ? from : null, to);
}

/**
 * What changed from `from` to `to` in a mirror that holds `to`: the commits in between and the
 * unified diff with its paths, read side by side. `from` is null when there is none or the mirror
 * does not have it; then `to`'s own commit stands for the change.
 */
export async function changeBetween(
  gitDir: string,
  from: string | null,
  to: string,
): Promise<{ commits: ChangedCommit[]; diff: string; files: string[] }> {
  // `show` reads a root commit too.
  const command = from !== null ? ['diff', from, to] : ['show', '--format=', to];
  const [commits, diff, names] = await Promise.all([
    logBetween(gitDir, from, to),
    runGit([...command, '--no-color', '--no-ext-diff', '--'], {
      cwd: gitDir,
      maxStdoutBytes: MAX_DIFF_BYTES,
    }),
    runGit([...command, '--name-only', '--no-renames', '--'], { cwd: gitDir }),
  ]);
  return {
    commits,
    diff: diff.stdout.toString('utf8'),
    files: names.stdout
      .toString('utf8')
      .split('\n')
      .filter((name) => name.length > 0),
  };
}

/** `git log` of `from..to`, or of `to` alone when `from` is null. */
async function logBetween(gitDir: string, from: string | null, to: string): Promise<ChangedCommit[]> {
  const { stdout } = await runGit(
    [
      'log',
      `--max-count=${MAX_COMMITS}`,
      `--format=${RECORD}%H${FIELD}%B${FIELD}`,
      '--name-only',
      '--no-renames',
      ...(from !== null ? [`${from}..${to}`] : [to, '-1']),
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

/** The commit a branch of the mirror points at; null when it has no such branch. */
export async function branchHead(gitDir: string, branch: string): Promise<string | null> {
  return runGit(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], { cwd: gitDir }).then(
    ({ stdout }) => stdout.toString('utf8').trim() || null,
    () => null,
  );
}
