/**
 * The built-in checks over a job's lazy workspace (docs/architecture.md#the-queue-and-its-fencing): files are listed from the
 * committed tree with the agent's changes, read through `git cat-file`, and searched with
 * `git grep`, so nothing is checked out for them.
 */
import { WorkspaceError } from '../git/paths.js';
import { runGit } from '../git/run.js';
import type { Workspace } from '../git/workspace.js';
import { type Change, isBinaryText, MAX_CHECKED_BYTES, type SiteTree } from './tree.js';

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
  // A branch still at the base it was made from has no commit of its own, and its head is the base
  // as the run found it: what the job changed is the agent's changes alone, read without git.
  const atBase = workspace.isAtStartOf(baseRef);
  const committed = atBase ? [] : await git(['diff', '--name-only', '--no-renames', '-z', `${base}...HEAD`]);
  const paths = [...new Set([...committed, ...workspace.changedPaths()])].sort();
  if (paths.length === 0) return [];
  const before = atBase
    ? await headPaths(workspace, paths)
    : new Set(await git(['ls-tree', '--name-only', '-z', base, '--', ...paths]));
  const now = new Set(await workspace.listFiles());
  const changes: Change[] = [];
  for (const path of paths) {
    if (!now.has(path)) {
      if (before.has(path)) changes.push({ path, kind: 'deleted' });
    } else changes.push({ path, kind: before.has(path) ? 'modified' : 'added' });
  }
  return changes;
}

/** Which of `paths` the workspace's head commit has. */
async function headPaths(workspace: Workspace, paths: string[]): Promise<Set<string>> {
  const found = await Promise.all(paths.map(async (path) => (await workspace.entryAt(path)) !== null));
  return new Set(paths.filter((_, index) => found[index]));
}

/**
 * A `SiteTree` over the version the job started from (the merge base of its branch and the base
 * branch), so the checks can tell the problems a change made from those already there. Read with
 * git per file: the checks read only the files the job touched and what they point at.
 */
export async function baseTree(workspace: Workspace, baseRef: string): Promise<SiteTree> {
  const git = (args: string[], options: { maxStdoutBytes?: number; acceptExitCodes?: number[] } = {}) =>
    runGit(args, { cwd: workspace.dir, ...options });
  const commit = (await git(['merge-base', `refs/heads/${baseRef}`, 'HEAD'])).stdout.toString('utf8').trim();
  let listed: Promise<string[]> | null = null;
  let known: Promise<Set<string>> | null = null;
  const files = () => {
    listed ??= git(['ls-tree', '-r', '--name-only', '-z', commit]).then((result) =>
      result.stdout.toString('utf8').split('\0').filter(Boolean).sort(),
    );
    return listed;
  };
  return {
    files,
    async read(path) {
      known ??= files().then((list) => new Set(list));
      if (!(await known).has(path)) return null;
      const result = await git(['cat-file', 'blob', `${commit}:${path}`], {
        maxStdoutBytes: MAX_CHECKED_BYTES + 1,
        acceptExitCodes: [128],
      });
      const content = result.stdout;
      if (result.exitCode !== 0 || result.truncated || isBinaryText(content)) return null;
      return content.toString('utf8');
    },
    async filesContaining(text, include) {
      const found = await git(['grep', '-l', '-z', '-F', '-e', text, commit, '--'], {
        maxStdoutBytes: 1024 * 1024,
        acceptExitCodes: [1],
      });
      const prefix = `${commit}:`;
      return found.stdout
        .toString('utf8')
        .split('\0')
        .filter(Boolean)
        .map((file) => (file.startsWith(prefix) ? file.slice(prefix.length) : file))
        .filter(include);
    },
  };
}
