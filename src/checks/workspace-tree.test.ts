import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixture, type Fixture } from '../../test/support/repo-fixture.js';
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
