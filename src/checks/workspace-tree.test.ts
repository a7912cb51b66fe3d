import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureMirror } from '../git/mirror.js';
import { runGit } from '../git/run.js';
import { Workspace } from '../git/workspace.js';
import { runBuiltInChecks } from './built-in.js';
import { workspaceChanges, workspaceTree } from './workspace-tree.js';

const identity = {
  GIT_AUTHOR_NAME: 'Upstream',
  GIT_AUTHOR_EMAIL: 'upstream@example.com',
  GIT_COMMITTER_NAME: 'Upstream',
  GIT_COMMITTER_EMAIL: 'upstream@example.com',
};

let root: string;
let mirrorPath: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'agentjobs-checks-ws-'));
  const upstream = join(root, 'upstream');
  const files: Record<string, string> = {
    'docs.json': JSON.stringify({ navigation: { pages: ['index', 'guides/setup'] } }, null, 2),
    'index.mdx': '---\ntitle: Home\n---\n\nSee [setup](/guides/setup).\n',
    'guides/setup.mdx': '---\ntitle: Setup\n---\n\n## Steps\n',
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(upstream, path, '..'), { recursive: true });
    writeFileSync(join(upstream, path), content);
  }
  const git = (...args: string[]) => runGit(args, { cwd: upstream, env: identity });
  await git('init', '--quiet', '--initial-branch=main');
  await git('add', '.');
  await git('commit', '--quiet', '-m', 'first');
  mirrorPath = await ensureMirror({
    mirrorsDir: join(root, 'mirrors'),
    projectId: 'p1',
    repository: upstream,
    env: {},
  });
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the built-in checks on a lazy workspace', () => {
  it("see the agent's unsaved changes and the branch's commits, with what they did to the base", async () => {
    const workspace = await Workspace.create({
      mirrorPath,
      dir: join(root, 'work', 'job-1'),
      branch: 'agentjobs/job-1',
      baseRef: 'main',
    });
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
