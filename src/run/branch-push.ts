/**
 * Pushing a job branch without ever overwriting someone else's commits on it (docs/code-hosts.md,
 * "Human work is kept"). The run started from the branch as the remote had it (the mirror's fetch),
 * so commits a person pushed before the run are under its own already. Commits pushed while the
 * run worked make git refuse the push (never forced): the run fetches the branch, merges their
 * commits under its own and pushes again; when the two conflict, it fails with a message that
 * says so, and pushes nothing. The job stays, and a follow-up starts from their commits.
 */
import type { Config } from '../config/config.js';
import { catchUp, isPushBehind } from '../git/catch-up.js';
import { pushBranch } from '../git/push.js';
import type { Workspace } from '../git/workspace.js';
import { RepositoryError } from './errors.js';

/** Pushes that find the branch moved again, one after the other, before the run gives up. */
const CATCH_UPS = 3;

/** What `pushKeepingOthers` takes. */
export interface BranchPushInput {
  config: { worker: Pick<Config['worker'], 'gitAuthorName' | 'gitAuthorEmail'> };
  /** The run's workspace, on the branch to push; it is not read after this (its head may move on disk). */
  workspace: Workspace;
  mirrorPath: string;
  /** Credentials for git, from the host. */
  env: Record<string, string>;
  signal: AbortSignal;
  /**
   * The commit the remote branch must still be at for a branch made again on its base (`rebase`)
   * to replace it; null or absent: fast-forwards only.
   */
  expect?: string | null | undefined;
  /** Told of each merge of someone else's commits, before it is pushed (to record it). */
  onMerge?: (commit: string) => Promise<unknown>;
}

/** Pushes the workspace's branch as a fast-forward; returns the commit the remote branch ends at. */
export async function pushKeepingOthers(input: BranchPushInput): Promise<string> {
  const { workspace, mirrorPath, env, signal } = input;
  const branch = workspace.branch;
  let head = workspace.headCommit;
  if (input.expect) {
    // Rebuilt history cannot be merged under: it replaces the old branch only while the remote is
    // still where the run started. Someone's push since makes git refuse it, and theirs stays.
    await pushBranch({ mirrorPath, branch, env, signal, expect: input.expect });
    return head;
  }
  for (let attempt = 0; ; attempt++) {
    try {
      await pushBranch({ mirrorPath, branch, env, signal });
      return head;
    } catch (error) {
      if (!isPushBehind(error) || attempt >= CATCH_UPS) throw error;
    }
    const merged = await catchUp({
      dir: workspace.dir,
      head,
      branch,
      env,
      authorName: input.config.worker.gitAuthorName,
      authorEmail: input.config.worker.gitAuthorEmail,
    });
    if (merged.status === 'conflicts') {
      throw new RepositoryError(
        `Someone pushed commits to ${branch} while the job ran, and they conflict with this run's changes in ${merged.conflicts.join(', ')}. Nothing was pushed over them. Send a follow-up: it starts from their commits.`,
      );
    }
    head = merged.commit;
    await input.onMerge?.(head);
  }
}
