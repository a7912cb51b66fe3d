/**
 * A real checkout of a workspace's tree, made only when a step needs files on disk (a project's
 * check command, docs/architecture.md#the-queue-and-its-fencing): an index of its own is filled from the head commit plus the
 * agent's unsaved changes, and `checkout-index` writes every file under a fresh folder. No `.git`
 * is written there, so whatever runs in it cannot reach the repository.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runGit } from './run.js';
import type { WrittenFile } from './worktree.js';

/** What `checkoutTree` writes: the commit, and the changes on top of it. */
export interface CheckoutSource {
  /** The worktree to run git in. */
  dir: string;
  head: string;
  written: ReadonlyMap<string, WrittenFile>;
  deleted: ReadonlySet<string>;
}

/** Writes the tree of `source` into `target` (an existing empty folder). */
export async function checkoutTree(source: CheckoutSource, target: string): Promise<void> {
  const env = { GIT_INDEX_FILE: join(tmpdir(), `agentjobs-checkout-${randomUUID()}`) };
  const zero = '0'.repeat(source.head.length);
  try {
    await runGit(['read-tree', source.head], { cwd: source.dir, env });
    const records = [...source.deleted].map((path) => `0 ${zero}\t${path}\0`);
    for (const [path, file] of source.written) records.push(`${file.mode} ${file.sha}\t${path}\0`);
    if (records.length > 0)
      await runGit(['update-index', '-z', '--index-info'], { cwd: source.dir, env, input: records.join('') });
    // The prefix ends with a slash: files go under the folder, not beside it.
    await runGit(['checkout-index', '--all', '--force', `--prefix=${target.replace(/\/*$/, '/')}`], {
      cwd: source.dir,
      env,
      timeoutMs: 10 * 60_000,
    });
  } finally {
    await rm(env.GIT_INDEX_FILE, { force: true });
  }
}
