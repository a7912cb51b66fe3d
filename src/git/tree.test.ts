import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatFile } from './cat-file.js';
import { runGit } from './run.js';
import { listTree, TreeReader } from './tree.js';

let root: string;
let objects: CatFile;
let commit: string;
let tree: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'agentjobs-tree-'));
  await runGit(['init', '--quiet', '--bare', root]);
  const files = [
    'README.md',
    'docs/a.md',
    'docs/deep/er/b.md',
    'docs/deep/c.md',
    'x/y/z/w.md',
    'ü nicode/ß.md',
  ];
  const lines = ['commit refs/heads/main', 'committer U <u@example.com> 1700000000 +0000', 'data 2', 'x'];
  for (const file of files) lines.push(`M 100644 inline ${file}`, 'data 2', 'x');
  await runGit(['fast-import', '--quiet'], { cwd: root, input: `${lines.join('\n')}\n` });
  objects = new CatFile(root);
  const start = await objects.resolveCommit('refs/heads/main');
  commit = start?.commit as string;
  tree = start?.tree as string;
});

afterAll(async () => {
  await objects.close();
  rmSync(root, { recursive: true, force: true });
});

describe('TreeReader.listFiles', () => {
  it('lists what `git ls-tree -r` lists, for the root and for a folder', async () => {
    const reader = new TreeReader(objects);
    const all = await reader.listFiles(tree, '');
    expect(all?.sort()).toEqual((await listTree(root, commit, '')).sort());
    const docs = (await reader.entries(tree)).get('docs')?.sha as string;
    const below = await reader.listFiles(docs, 'docs');
    expect(below?.sort()).toEqual((await listTree(root, commit, 'docs')).sort());
  });

  it('gives up (null) once it read more entries than its limit', async () => {
    expect(await new TreeReader(objects).listFiles(tree, '', 3)).toBeNull();
  });
});
