/**
 * The built-in checks over a job's lazy workspace (DESIGN section 4): files are listed from the
 * committed tree with the agent's changes, read through `git cat-file`, and searched with
 * `git grep`, so nothing is checked out for them.
 */
import { WorkspaceError } from '../git/paths.js';
import { runGit } from '../git/run.js';
import type { Workspace } from '../git/workspace.js';
import { type Change, isBinaryText, type SiteTree } from './tree.js';

/** Matching lines read per search; a removed page named on more lines than this is rare. */
const SEARCH_LIMIT = 5000;

/** A `SiteTree` over the workspace as it is now (its commits and the agent's unsaved changes). */
export function workspaceTree(workspace: Workspace): SiteTree {
  let listed: Promise<string[]> | null = null;
  return {
    files: () => {
      listed ??= workspace.listFiles();
      return listed;
    },
    async read(path) {
      try {
        const content = await workspace.readFile(path);
        return content && !isBinaryText(content) ? content.toString('utf8') : null;
      } catch (error) {
        // Too large, a folder, a link leading out: nothing the checks can read.
        if (error instanceof WorkspaceError) return null;
        throw error;
      }
    },
    async filesContaining(text, include) {
      const found = await workspace.search(text, { limit: SEARCH_LIMIT });
      return [...new Set(found.matches.map((match) => match.path))].filter(include);
    },
  };
}

/**
 * What the job changed against its base: the commits of its branch since the base (earlier runs,
 * for a follow-up) and the agent's changes not yet committed, each as added, modified or deleted.
 */
export async function workspaceChanges(workspace: Workspace, baseRef: string): Promise<Change[]> {
  const base = `refs/heads/${baseRef}`;
  const git = async (args: string[]) =>
    (await runGit(args, { cwd: workspace.dir })).stdout.toString('utf8').split('\0').filter(Boolean);
  const committed = await git(['diff', '--name-only', '--no-renames', '-z', `${base}...HEAD`]);
  const paths = [...new Set([...committed, ...workspace.changedPaths()])].sort();
  if (paths.length === 0) return [];
  const before = new Set(await git(['ls-tree', '--name-only', '-z', base, '--', ...paths]));
  const now = new Set(await workspace.listFiles());
  const changes: Change[] = [];
  for (const path of paths) {
    if (!now.has(path)) {
      if (before.has(path)) changes.push({ path, kind: 'deleted' });
    } else changes.push({ path, kind: before.has(path) ? 'modified' : 'added' });
  }
  return changes;
}
