/**
 * Test support for context repositories (not used by the service): a code repository with two
 * commits, cloned bare as a mirror would hold it, and a fingerprint of that bare repository (its
 * refs and every file under it) to show a run left it untouched.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContextSource } from '../../src/agent/options.js';
import { git, write } from './workspace-fixture.js';

/** A bare code repository whose `main` moved on after the commit a run reads. */
export interface CodeRepository {
  root: string;
  gitDir: string;
  /** The commit a run is given. */
  first: string;
  /** A later commit on `main`, which a run at `first` must not see. */
  later: string;
  /** The run's `ContextSource` at `first`, named `name`. */
  source(name?: string): ContextSource;
  cleanup(): void;
}

/** Files of the first commit; the later one adds `src/later.ts` and a flag to `src/cli.ts`. */
export const CODE_FILES: Record<string, string | Buffer> = {
  'README.md': '# tool\n\nA command-line tool.\n',
  'src/cli.ts':
    "export const flags = {\n  '--dry-run': 'Build and check without deploying',\n  '--verbose': 'Print each step',\n};\n",
  'src/config.ts': 'export const defaults = { timeoutSeconds: 45 };\n',
  'big.txt': 'x'.repeat(20_000),
  '"quoted".md': 'quoted\n',
  'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]),
};

/** Builds the code repository and its bare clone in a temporary folder of its own. */
export async function createCodeRepository(): Promise<CodeRepository> {
  const root = mkdtempSync(join(tmpdir(), 'agentjobs-code-'));
  const upstream = join(root, 'upstream');
  mkdirSync(upstream);
  await git(upstream, 'init', '--quiet', '--initial-branch=main');
  for (const [path, content] of Object.entries(CODE_FILES)) write(upstream, path, content);
  symlinkSync('../../etc/passwd', join(upstream, 'evil'));
  symlinkSync('src/cli.ts', join(upstream, 'cli-link.ts'));
  await git(upstream, 'add', '.');
  await git(upstream, 'commit', '--quiet', '-m', 'first');
  const first = await git(upstream, 'rev-parse', 'HEAD');
  write(upstream, 'src/later.ts', 'export const later = "--later-flag";\n');
  await git(upstream, 'add', '.');
  await git(upstream, 'commit', '--quiet', '-m', 'later');
  const later = await git(upstream, 'rev-parse', 'HEAD');
  const gitDir = join(root, 'code.git');
  await git(root, 'clone', '--quiet', '--bare', upstream, gitDir);
  return {
    root,
    gitDir,
    first,
    later,
    source: (name = 'code') => ({ name, ref: 'main', commit: first, gitDir }),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** The refs and a hash of every file of the bare repository at `gitDir`: equal when nothing changed. */
export async function fingerprint(gitDir: string): Promise<{ refs: string; files: Record<string, string> }> {
  const refs = await git(gitDir, 'for-each-ref', '--format=%(refname) %(objectname)');
  const files: Record<string, string> = {};
  for (const entry of readdirSync(gitDir, { recursive: true, withFileTypes: true })) {
    if (entry.isDirectory()) continue;
    const path = join(entry.parentPath, entry.name);
    files[path.slice(gitDir.length + 1)] = createHash('sha256').update(readFileSync(path)).digest('hex');
  }
  return { refs, files };
}
