/**
 * A real upstream repository with one commit on `main`, cloned bare as its "origin" and mirrored,
 * with `Workspace`s over it: what the agent's and the checks' tests build their runs on.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureMirror } from '../../src/git/mirror.js';
import { runGit } from '../../src/git/run.js';
import { Workspace } from '../../src/git/workspace.js';

const identity = {
  GIT_AUTHOR_NAME: 'Upstream',
  GIT_AUTHOR_EMAIL: 'upstream@example.com',
  GIT_COMMITTER_NAME: 'Upstream',
  GIT_COMMITTER_EMAIL: 'upstream@example.com',
};

/** What the fixture repository holds: files by path, and symlinks (path → target). */
export interface FixtureContent {
  files: Record<string, string | Buffer>;
  links?: Record<string, string>;
}

/** A repository with one commit on `main`, mirrored, ready for workspaces. */
export interface Fixture {
  root: string;
  mirrorPath: string;
  /** A new workspace on its own job branch. */
  workspace(options?: { maxFileBytes?: number }): Promise<Workspace>;
  /** Closes every workspace made and removes all files. */
  cleanup(): Promise<void>;
}

/** Builds the upstream repository, clones it bare as the "origin" and mirrors it. */
export async function createFixture(content: FixtureContent, prefix = 'agentjobs-agent-'): Promise<Fixture> {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const upstream = join(root, 'upstream');
  mkdirSync(upstream);
  const git = (cwd: string, ...args: string[]) => runGit(args, { cwd, env: identity });
  await git(upstream, 'init', '--quiet', '--initial-branch=main');
  for (const [path, data] of Object.entries(content.files)) {
    mkdirSync(join(upstream, path, '..'), { recursive: true });
    writeFileSync(join(upstream, path), data);
  }
  for (const [path, target] of Object.entries(content.links ?? {})) symlinkSync(target, join(upstream, path));
  await git(upstream, 'add', '.');
  await git(upstream, 'commit', '--quiet', '-m', 'first');
  await git(root, 'clone', '--quiet', '--bare', upstream, join(root, 'origin.git'));
  const mirrorPath = await ensureMirror({
    mirrorsDir: join(root, 'mirrors'),
    projectId: 'demo',
    repository: join(root, 'origin.git'),
    env: {},
  });
  const open: Workspace[] = [];
  let count = 0;
  return {
    root,
    mirrorPath,
    async workspace(options = {}) {
      count += 1;
      const workspace = await Workspace.create({
        mirrorPath,
        dir: join(root, 'work', `job-${count}`),
        branch: `agentjobs/job-${count}`,
        baseRef: 'main',
        ...options,
      });
      open.push(workspace);
      return workspace;
    },
    async cleanup() {
      for (const workspace of open) await workspace.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
