import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixture, type Fixture } from '../../test/support/repo-fixture.js';
import { runGit } from '../git/run.js';
import { runBuiltInChecks } from './built-in.js';
import { workspaceChanges, workspaceTree } from './workspace-tree.js';

let fixture: Fixture;

beforeAll(async () => {
  fixture = await createFixture(
    {
      files: {
        'docs.json': JSON.stringify({ navigation: { pages: ['index', 'guides/setup'] } }, null, 2),
        'index.mdx': '---\ntitle: Home\n---\n\nSee [setup](/guides/setup).\n',
        'guides/setup.mdx': '---\ntitle: Setup\n---\n\n## Steps\n',
      },
    },
    'agentjobs-checks-ws-',
  );
});

afterAll(() => fixture.cleanup());

describe('the built-in checks on a lazy workspace', () => {
  it("see the agent's unsaved changes and the branch's commits, with what they did to the base", async () => {
    const workspace = await fixture.workspace();
    try {
      await workspace.writeFile('faq.mdx', '---\ntitle: FAQ\n---\n\n<Note>\nOpen.\n');
      await workspace.commit({ message: 'Add the FAQ', authorName: 'Bot', authorEmail: 'bot@example.com' });
      await workspace.moveFile('guides/setup.mdx', 'guides/install.mdx');
      await workspace.writeFile('index.mdx', '---\ntitle: Home\n---\n\nSee [setup](/guides/setup#steps).\n');
      const changes = await workspaceChanges(workspace, 'main');
      expect(changes).toEqual([
        { path: 'faq.mdx', kind: 'added' },
        { path: 'guides/install.mdx', kind: 'added' },
        { path: 'guides/setup.mdx', kind: 'deleted' },
        { path: 'index.mdx', kind: 'modified' },
      ]);
      const results = await runBuiltInChecks({ tree: workspaceTree(workspace), changes });
      const problems = results.flatMap((result) =>
        result.problems.map((p) => `${result.name} ${p.path}:${p.line}`),
      );
      expect(problems).toEqual([
        'markdown faq.mdx:5',
        'links index.mdx:5',
        'navigation docs.json:5',
        'navigation faq.mdx:null',
        'navigation guides/install.mdx:null',
      ]);
    } finally {
      await workspace.close();
    }
  });
});

describe('what a job changed, on a branch still at its base', () => {
  it('is the agent changes alone, each as git would tell it, with no git process', async () => {
    const own = await createFixture(
      {
        files: {
          'a.md': 'same\n',
          'guides/setup.mdx': 'setup\n',
          'img/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]),
          'old/gone.md': 'gone\n',
        },
        links: { latest: 'guides' },
      },
      'agentjobs-checks-base-',
    );
    try {
      const workspace = await own.workspace();
      expect(workspace.isAtStartOf('main')).toBe(true);
      expect(workspace.isAtStartOf('agentjobs/job-1')).toBe(false);
      await workspace.writeFile('new.md', 'new\n');
      await workspace.writeFile('a.md', 'same\n');
      await workspace.moveFile('guides/setup.mdx', 'guides/install.mdx');
      await workspace.deleteFile('old/gone.md');
      await workspace.writeFile('img/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 3]));
      await workspace.writeFile('latest/extra.md', 'through the link\n');
      const changes = await workspaceChanges(workspace, 'main');
      expect(changes).toEqual([
        { path: 'a.md', kind: 'modified' },
        { path: 'guides/extra.md', kind: 'added' },
        { path: 'guides/install.mdx', kind: 'added' },
        { path: 'guides/setup.mdx', kind: 'deleted' },
        { path: 'img/logo.png', kind: 'modified' },
        { path: 'new.md', kind: 'added' },
        { path: 'old/gone.md', kind: 'deleted' },
      ]);
      // What git itself lists of those paths in the base, as the answer for a moved branch reads it.
      const paths = changes.map((change) => change.path);
      const listed = await runGit(['ls-tree', '--name-only', '-z', 'refs/heads/main', '--', ...paths], {
        cwd: workspace.dir,
      });
      const before = listed.stdout.toString('utf8').split('\0').filter(Boolean);
      expect(changes.filter((change) => change.kind !== 'added').map((change) => change.path)).toEqual(
        before,
      );
      for (const path of ['latest', 'guides', 'latest/setup.mdx'])
        expect((await workspace.entryAt(path)) !== null).toBe(path !== 'latest/setup.mdx');

      // Once committed, the branch has moved and git is asked: the same changes but the unchanged file.
      await workspace.commit({ message: 'Change', authorName: 'Bot', authorEmail: 'bot@example.com' });
      expect(workspace.isAtStartOf('main')).toBe(false);
      expect(await workspaceChanges(workspace, 'main')).toEqual(
        changes.filter((change) => change.path !== 'a.md'),
      );
    } finally {
      await own.cleanup();
    }
  });
});
