/**
 * A run stopped at its cost limit keeps what it did: the changes are committed and pushed to the
 * job's branch (no pull request: the work is unfinished), and the job's error says where they are.
 * A follow-up continues on that branch, so money already spent is not thrown away.
 */
import type { Config } from '../config/config.js';
import type { Job } from '../domain/job.js';
import type { Redactor } from '../domain/redact.js';
import type { Workspace } from '../git/workspace.js';
import type { Lease } from '../store/queue/index.js';
import type { Store } from '../store/store.js';
import { pushKeepingOthers } from './branch-push.js';

export interface KeepWorkInput {
  config: { worker: Pick<Config['worker'], 'gitAuthorName' | 'gitAuthorEmail' | 'leaseMs'> };
  store: Store;
  lease: Lease;
  job: Job;
  workspace: Workspace;
  mirrorPath: string;
  env: Record<string, string>;
  /** The run's redactor: the commit message quotes the prompt, which may hold a key. */
  redact: Redactor;
  signal: AbortSignal;
  /** The commit the branch was at before this run made it again on its base (`git/merge.ts`); null: it was not. */
  rebuiltFrom?: string | null;
}

/** Commits and pushes the run's changes to the job branch; returns a sentence for the job's error, or null. */
export async function keepWorkOnBranch(input: KeepWorkInput): Promise<string | null> {
  const { config, store, lease, job, workspace } = input;
  const files = workspace.changedPaths();
  if (files.length === 0) return null;
  const sha = await workspace.commit({
    message: `Unfinished: stopped at its cost limit\n\nPrompt: ${input.redact(job.prompt).slice(0, 500)}\n`,
    authorName: config.worker.gitAuthorName,
    authorEmail: config.worker.gitAuthorEmail,
  });
  if (!sha) return null;
  await store.queue.appendEvent(lease, 'commit', { sha, files, branch: job.source.ref, unfinished: true });
  await store.queue.heartbeat(lease, config.worker.leaseMs);
  // Never forced: commits someone else pushed meanwhile are merged under the run's (branch-push.ts).
  await pushKeepingOthers({
    config,
    workspace,
    mirrorPath: input.mirrorPath,
    env: input.env,
    signal: input.signal,
    expect: input.rebuiltFrom,
  });
  const count = `${files.length} file${files.length === 1 ? '' : 's'}`;
  return `The work so far (${count}) is kept on the branch ${job.source.ref}; a follow-up continues from it.`;
}
