/**
 * What a local repository must have before a project may use it: a first commit, and the branch
 * pull requests target. Checked when a project is made or edited (the CLI and the dashboard), so
 * that the person sees it then, in their words, and not later as a failed job in the mirror's.
 */
import { runGit } from './run.js';

/** The repository cannot serve as a project's; the message says what to do about it. */
export class RepositoryCheckError extends Error {
  override name = 'RepositoryCheckError';
  /** `repository` when the folder itself is the problem, `baseBranch` when only the branch is. */
  readonly field: 'repository' | 'baseBranch';
  constructor(message: string, field: 'repository' | 'baseBranch') {
    super(message);
    this.field = field;
  }
}

async function git(repository: string, args: string[]): Promise<string | null> {
  try {
    const { stdout } = await runGit(args, { cwd: repository, timeoutMs: 10_000 });
    return stdout.toString('utf8').trim();
  } catch {
    return null;
  }
}

/**
 * Refuses a local repository that is not one, has no commits, or lacks `baseBranch`. Remote
 * repositories are not checked here: that needs the host's token and the network, which
 * `agentjobs project check` and the dashboard's "Check access" do on request.
 */
export async function checkLocalRepository(repository: string, baseBranch: string): Promise<void> {
  if ((await git(repository, ['rev-parse', '--git-dir'])) === null)
    throw new RepositoryCheckError(
      `${repository} is not a git repository: run git init there (and make a first commit), or choose another folder.`,
      'repository',
    );
  const branches = await git(repository, ['for-each-ref', '--format=%(refname:short)', 'refs/heads/']);
  if (!branches)
    throw new RepositoryCheckError(
      `${repository} has no commits yet: make a first commit (git commit) and try again.`,
      'repository',
    );
  if (
    baseBranch.startsWith('-') ||
    (await git(repository, ['check-ref-format', '--branch', baseBranch])) === null
  )
    throw new RepositoryCheckError(`"${baseBranch}" is not a valid branch name.`, 'baseBranch');
  const found = await git(repository, [
    'rev-parse',
    '--verify',
    '--quiet',
    `refs/heads/${baseBranch}^{commit}`,
  ]);
  if (found === null) {
    const names = branches.split('\n');
    const shown = names.slice(0, 5).join(', ') + (names.length > 5 ? ', …' : '');
    throw new RepositoryCheckError(
      `${repository} has no branch "${baseBranch}" (its branches: ${shown}): choose one of them as the base branch, or create ${baseBranch} there.`,
      'baseBranch',
    );
  }
}
