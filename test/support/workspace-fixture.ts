/** The repository and helpers the Workspace tests share (not a test file itself). */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { ensureMirror } from '../../src/git/mirror.js';
import { runGit } from '../../src/git/run.js';
import { Workspace, type WorkspaceOptions } from '../../src/git/workspace.js';

const identity = {
  GIT_AUTHOR_NAME: 'Upstream',
  GIT_AUTHOR_EMAIL: 'upstream@example.com',
  GIT_COMMITTER_NAME: 'Upstream',
  GIT_COMMITTER_EMAIL: 'upstream@example.com',
};
export const bot = { authorName: 'Agent Jobs', authorEmail: 'bot@example.com' };

export async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await runGit(args, { cwd, env: identity })).stdout.toString('utf8').trim();
}

export function write(root: string, path: string, content: string | Buffer): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), content);
}

/** Every file under `dir`, recursively, as relative paths. */
export function filesOnDisk(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

export const PNG = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52,
]);

/** The shared repository of the workspace tests, made by `useWorkspaceFixture`. */
export const fx = { root: '', mirrorPath: '', baseSha: '' };
let dirCount = 0;
export const nextDir = () => join(fx.root, 'work', `job-${++dirCount}`);

/** A Workspace on `branch` of the fixture's mirror, from `main`, in a directory of its own unless given. */
export function openWorkspace(branch: string, options: Partial<WorkspaceOptions> = {}): Promise<Workspace> {
  return Workspace.create({ mirrorPath: fx.mirrorPath, dir: nextDir(), branch, baseRef: 'main', ...options });
}

/** The workspace of a describe block: opened before its tests, closed after them. */
export function useWorkspace(branch: string): { workspace: Workspace } {
  const held = {} as { workspace: Workspace };
  beforeAll(async () => {
    held.workspace = await openWorkspace(branch);
  });
  afterAll(async () => {
    await held.workspace?.close();
  });
  return held;
}

/** Makes the upstream repository (text, binary, executable, hostile links) and its mirror. */
export function useWorkspaceFixture(): void {
  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'agentjobs-workspace-'));
    fx.root = root;
    const upstream = join(root, 'upstream');
    mkdirSync(upstream);
    await git(upstream, 'init', '--quiet', '--initial-branch=main');
    write(upstream, 'README.md', '# Demo\nHello world\n');
    write(upstream, 'docs/index.md', 'Index\nSee the guide\n');
    write(upstream, 'docs/guide/intro.md', 'Intro line one\nneedle here\n');
    await git(upstream, 'add', '.');
    await git(upstream, 'commit', '--quiet', '-m', 'first');
    write(upstream, 'images/logo.png', PNG);
    write(upstream, 'scripts/build.sh', '#!/bin/sh\necho build\n');
    chmodSync(join(upstream, 'scripts/build.sh'), 0o755);
    symlinkSync('docs/index.md', join(upstream, 'link-inside.md'));
    symlinkSync('docs', join(upstream, 'docs-link'));
    symlinkSync('../../etc/passwd', join(upstream, 'evil'));
    symlinkSync('/etc/passwd', join(upstream, 'abs-evil'));
    symlinkSync('.git/config', join(upstream, 'to-git'));
    symlinkSync('loop-b', join(upstream, 'loop-a'));
    symlinkSync('loop-a', join(upstream, 'loop-b'));
    symlinkSync('docs/nothing-here.md', join(upstream, 'dangling'));
    write(upstream, 'tiny.txt', 'ok\n');
    write(upstream, 'empty.txt', '');
    await git(upstream, 'add', '.');
    await git(upstream, 'commit', '--quiet', '-m', 'second');
    await git(root, 'clone', '--quiet', '--bare', upstream, join(root, 'origin.git'));
    fx.mirrorPath = await ensureMirror({
      mirrorsDir: join(root, 'mirrors'),
      projectId: 'demo',
      repository: join(root, 'origin.git'),
      env: {},
    });
    fx.baseSha = await git(fx.mirrorPath, 'rev-parse', 'refs/heads/main');
  });

  afterAll(() => {
    rmSync(fx.root, { recursive: true, force: true });
  });
}

export const ALL_FILES = [
  'README.md',
  'abs-evil',
  'dangling',
  'docs-link',
  'docs/guide/intro.md',
  'docs/index.md',
  'empty.txt',
  'evil',
  'images/logo.png',
  'link-inside.md',
  'loop-a',
  'loop-b',
  'scripts/build.sh',
  'tiny.txt',
  'to-git',
];
