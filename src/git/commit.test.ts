import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForGits } from '../../test/support/live-git.js';
import { CatFile } from './cat-file.js';
import { commitChanges } from './commit.js';
import { runGit } from './run.js';
import { hashBlob, type WrittenFile } from './worktree.js';

const bot = { message: 'Change', authorName: 'Bot', authorEmail: 'bot@example.com' };

let root: string;
let head: string;
let headTree: string;
let objects: CatFile;

async function git(args: string[], input?: string | Buffer, env?: Record<string, string>): Promise<string> {
  const options = { cwd: root, ...(input === undefined ? {} : { input }), ...(env ? { env } : {}) };
  return (await runGit(args, options)).stdout.toString('latin1').trim();
}

/** The tree git's own index makes of HEAD plus the changes: what the commit must equal. */
async function treeByIndex(written: Map<string, WrittenFile>, deleted: Set<string>): Promise<string> {
  const env = { GIT_INDEX_FILE: join(root, '.git', 'oracle-index') };
  await git(['read-tree', head], undefined, env);
  const zero = '0'.repeat(head.length);
  const records = [...deleted].map((path) => `0 ${zero}\t${path}\0`);
  for (const [path, file] of written) records.push(`${file.mode} ${file.sha}\t${path}\0`);
  await git(['update-index', '-z', '--index-info'], records.join(''), env);
  const tree = await git(['write-tree'], undefined, env);
  rmSync(env.GIT_INDEX_FILE, { force: true });
  return tree;
}

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'agentjobs-commit-')));
  await runGit(['init', '--quiet', '--initial-branch=main', root]);
  const blob = await hashBlob(root, Buffer.from('text\n'));
  // HEAD: nested folders, a folder with one file, an executable, a symlink, and a name that is not UTF-8.
  const entries = [
    `100644 ${blob}\tREADME.md`,
    `100644 ${blob}\tdocs/a.md`,
    `100644 ${blob}\tdocs/guide/b.md`,
    `100644 ${blob}\tdocs/guide/c.md`,
    `100644 ${blob}\tlonely/only.md`,
    `100755 ${blob}\tbin/run`,
    `120000 ${blob}\tlink`,
    `100644 ${blob}\tfile-becomes-folder`,
  ];
  const env = { GIT_INDEX_FILE: join(root, '.git', 'setup-index') };
  const records = Buffer.concat([
    ...entries.map((entry) => Buffer.from(`${entry}\0`)),
    Buffer.from(`100644 ${blob}\tlatin-`),
    Buffer.from([0xe9, 0x2e, 0x6d, 0x64, 0]),
  ]);
  await git(['update-index', '--add', '-z', '--index-info'], records, env);
  headTree = await git(['write-tree'], undefined, env);
  head = await git(['commit-tree', headTree], 'first\n', {
    GIT_AUTHOR_NAME: 'U',
    GIT_AUTHOR_EMAIL: 'u@example.com',
    GIT_COMMITTER_NAME: 'U',
    GIT_COMMITTER_EMAIL: 'u@example.com',
  });
  await git(['update-ref', 'HEAD', head]);
  objects = new CatFile(root);
});

afterAll(async () => {
  await objects.close();
  rmSync(root, { recursive: true, force: true });
});

describe('commitChanges builds the tree git would build from an index', () => {
  const cases: [string, () => Promise<[Map<string, WrittenFile>, Set<string>]>][] = [
    [
      'a changed file deep down',
      async () => [new Map([['docs/guide/b.md', await file('new b\n')]]), new Set()],
    ],
    [
      'new files in new and old folders',
      async () => [
        new Map([
          ['docs/new/deep/x.md', await file('x\n')],
          ['docs/guide/d.md', await file('d\n')],
          ['top.md', await file('top\n')],
        ]),
        new Set(),
      ],
    ],
    ['a folder emptied by a deletion disappears', async () => [new Map(), new Set(['lonely/only.md'])]],
    [
      'a file replaced by a folder of the same name',
      async () => [
        new Map([['file-becomes-folder/inside.md', await file('in\n')]]),
        new Set(['file-becomes-folder']),
      ],
    ],
    [
      'a folder emptied and replaced by a file',
      async () => [new Map([['lonely', await file('now a file\n')]]), new Set(['lonely/only.md'])],
    ],
    [
      'modes and links kept; an executable rewritten',
      async () => [
        new Map([['bin/run', { mode: '100755', sha: (await file('#!/bin/sh\n')).sha }]]),
        new Set(['link']),
      ],
    ],
    [
      'everything deleted: the empty tree',
      async () => [
        new Map(),
        new Set([
          'README.md',
          'docs/a.md',
          'docs/guide/b.md',
          'docs/guide/c.md',
          'lonely/only.md',
          'bin/run',
          'link',
          'file-becomes-folder',
          Buffer.from([0x6c, 0x61, 0x74, 0x69, 0x6e, 0x2d, 0xe9, 0x2e, 0x6d, 0x64]).toString('latin1'),
        ]),
      ],
    ],
  ];

  it.each(cases)('%s', async (_name, make) => {
    const [written, deleted] = await make();
    // The name that is not UTF-8 is deleted by its bytes in the index, but the workspace names
    // paths in UTF-8: that case compares against the index without it, and checks it separately.
    const latin = [...deleted].find((path) => path.startsWith('latin-'));
    const oracleDeleted = new Set([...deleted].filter((path) => path !== latin));
    const expected = await treeByIndex(written, oracleDeleted);
    const result = await commitChanges({
      dir: root,
      head,
      headTree,
      written,
      deleted: oracleDeleted,
      objects,
      ...bot,
    });
    expect(result?.tree).toBe(expected);
    expect(await git(['rev-parse', 'HEAD'])).toBe(result?.commit);
    expect(await git(['rev-parse', 'HEAD^'])).toBe(head);
    // The name that is not UTF-8 comes back byte for byte when it was left alone.
    if (!latin) expect(await git(['ls-tree', '--name-only', '-z', 'HEAD'])).toContain('latin-\xe9.md');
    await git(['update-ref', 'HEAD', head]);
  });

  it('returns null, and moves nothing, when the changes leave the tree as it was', async () => {
    const same = (await git(['rev-parse', `${head}:docs/a.md`])) as string;
    const result = await commitChanges({
      dir: root,
      head,
      headTree,
      written: new Map([['docs/a.md', { mode: '100644', sha: same }]]),
      deleted: new Set(['docs/missing.md']),
      objects,
      ...bot,
    });
    expect(result).toBeNull();
    expect(await git(['rev-parse', 'HEAD'])).toBe(head);
  });

  it('refuses a blob that is not in the repository instead of writing a broken tree', async () => {
    const missing = { mode: '100644', sha: '1234567890123456789012345678901234567890' };
    const commit = commitChanges({
      dir: root,
      head,
      headTree,
      written: new Map([['m.md', missing]]),
      deleted: new Set(),
      objects,
      ...bot,
    });
    await expect(commit).rejects.toThrow();
    expect(await git(['rev-parse', 'HEAD'])).toBe(head);
  });
});

describe('commitChanges on abort', () => {
  it('kills its git and leaves the branch where it was', async () => {
    // A reader that holds the first tree read until the test lets it go: mktree is running then.
    let entered = () => {};
    const reading = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let letGo = () => {};
    const gate = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    class HeldReader extends CatFile {
      override async read(object: string, maxBytes?: number) {
        entered();
        await gate;
        return super.read(object, maxBytes);
      }
    }
    const held = new HeldReader(root);
    const controller = new AbortController();
    const commit = commitChanges({
      dir: root,
      head,
      headTree,
      written: new Map([['docs/new.md', await file('new\n')]]),
      deleted: new Set(),
      objects: held,
      pathsChecked: true,
      signal: controller.signal,
      ...bot,
    });
    await reading;
    expect(await waitForGits(root, 'mktree', 1)).toHaveLength(1);
    controller.abort();
    expect(await waitForGits(root, 'mktree', 0)).toEqual([]);
    letGo();
    await expect(commit).rejects.toMatchObject({ subcommand: 'mktree', reason: 'aborted' });
    expect(await git(['rev-parse', 'HEAD'])).toBe(head);
    await held.close();
  });
});

async function file(content: string): Promise<WrittenFile> {
  return { mode: '100644', sha: await hashBlob(root, Buffer.from(content)) };
}
