import { afterEach, describe, expect, it } from 'vitest';
import { createFixture, type Fixture } from '../../test/support/agent-fixture.js';
import { runBuiltInChecks } from '../checks/index.js';
import { workspaceChanges, workspaceTree } from '../checks/workspace-tree.js';
import type { Workspace } from '../git/workspace.js';
import { DEMO_NOTE, titleFrom } from './demo-change.js';
import { createDemoModel, nextMove } from './demo-model.js';
import { type AgentLimits, runAgent } from './loop.js';
import { priceOf } from './prices.js';
import { RESUMED_WITH_FILES, RESUMED_WITHOUT_FILES } from './service-notes.js';

const LIMITS: AgentLimits = { maxSteps: 20, maxWallMs: 20_000, maxTokens: 1_000_000, maxFilesChanged: 10 };
const PROMPT = 'Add a FAQ page that answers how to install the CLI, and link it from the README';

let fixture: Fixture | null = null;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = null;
});

const FILES = {
  'README.md': '# Acme docs\n\n- [Install](docs/install.md)\n',
  'docs/install.md': '# Install\n\nnpm install acme-cli\n',
};

/** The loop's options for the demo model over `workspace`, with no prompt yet. */
const demoOptions = (workspace: Workspace) => ({
  model: createDemoModel(),
  workspace,
  history: [],
  prompts: [],
  takePendingPrompts: async () => [],
  limits: LIMITS,
  signal: new AbortController().signal,
  onEvent: async () => {},
  stream: true,
  price: priceOf('demo'),
});

/** Runs the demo model over a repository holding `files`, through the real tools and loop. */
async function runDemo(
  files: Record<string, string>,
  options: { stream?: boolean; prompts?: string[] } = {},
) {
  fixture = await createFixture({ files });
  const workspace = await fixture.workspace();
  const run = (prompts: string[], history: Awaited<ReturnType<typeof runAgent>>['messages'] = []) =>
    runAgent({
      model: createDemoModel(),
      workspace,
      history,
      prompts,
      takePendingPrompts: async () => [],
      limits: LIMITS,
      signal: new AbortController().signal,
      onEvent: async () => {},
      stream: options.stream ?? true,
      price: priceOf('demo'),
    });
  const result = await run(options.prompts ?? [PROMPT]);
  return { result, workspace, run };
}

/** The problems the built-in checks find in the job's change. */
async function problems(workspace: Workspace) {
  const results = await runBuiltInChecks({
    tree: workspaceTree(workspace),
    changes: await workspaceChanges(workspace, 'main'),
  });
  return results.flatMap((result) => result.problems);
}

const read = (workspace: Workspace, path: string) =>
  workspace.readFile(path).then((buffer) => buffer?.toString());

describe('the demo model', () => {
  it('writes a labelled page titled from the prompt and links it from the README, at no cost', async () => {
    const { result, workspace } = await runDemo({
      'README.md':
        '# Acme docs\n\n- [Getting started](docs/getting-started.md)\n- [Install](docs/install.md)\n',
      'docs/getting-started.md': '# Getting started\n\nRun `acme init`.\n',
      'docs/install.md': '# Install\n\nnpm install acme-cli\n',
    });
    expect(result.filesChanged.sort()).toEqual(['README.md', 'docs/faq.md']);
    const page = await read(workspace, 'docs/faq.md');
    expect(page).toMatch(/^# FAQ\n/);
    expect(page).toContain(DEMO_NOTE);
    expect(page).toContain(PROMPT);
    expect(await read(workspace, 'README.md')).toContain(
      '- [Install](docs/install.md)\n- [FAQ](docs/faq.md)\n',
    );
    expect(result.summary).toMatch(/^Demo: add the page “FAQ”\n/);
    expect(result.summary).toContain('demo model made this change; no AI model was used');
    expect(result.usage.costUsd).toBe(0);
    expect(await problems(workspace)).toEqual([]);
  });

  it('adds a Mintlify page with front matter to the navigation, and the checks pass', async () => {
    const { result, workspace } = await runDemo(
      {
        'docs.json': `${JSON.stringify({ name: 'Acme', navigation: { groups: [{ group: 'Start', pages: ['index', 'install'] }] } }, null, 2)}\n`,
        'index.mdx': '---\ntitle: Welcome\n---\n\nHello.\n',
        'install.mdx': '---\ntitle: Install\n---\n\nRun `npm install acme-cli`.\n',
      },
      {
        stream: false,
        prompts: [
          'Document the {verbose} flag: `acme --verbose` prints every step\nMy key: sk-ant-api03-abcdefghijklmnop',
        ],
      },
    );
    const page = result.filesChanged.find((path) => path.endsWith('.mdx')) as string;
    expect(page).toBe('document-the-verbose-flag.mdx');
    const text = await read(workspace, page);
    expect(text).toMatch(/^---\ntitle: "Document the verbose flag"\n/);
    // The prompt is quoted as text, with a key pasted into it blanked.
    expect(text).toContain('`acme --verbose` prints every step\nMy key: [redacted]\n');
    expect(text).not.toContain('abcdefghijklmnop');
    expect(JSON.parse((await read(workspace, 'docs.json')) ?? '').navigation.groups[0].pages).toEqual([
      'index',
      'document-the-verbose-flag',
      'install',
    ]);
    expect(await problems(workspace)).toEqual([]);
  });

  it('adds an MkDocs page to nav in docs_dir, and a follow-up writes another page', async () => {
    const { result, workspace, run } = await runDemo({
      'mkdocs.yml':
        'site_name: Acme\ndocs_dir: content\nnav:\n  - Home: index.md\n  - Guide:\n      - guide.md\n',
      'content/index.md': '# Home\n',
      'content/guide.md': '# Guide\n',
    });
    expect(result.filesChanged.sort()).toEqual(['content/faq.md', 'mkdocs.yml']);
    expect(await read(workspace, 'mkdocs.yml')).toContain('  - Home: index.md\n  - "FAQ": faq.md\n');
    expect(await problems(workspace)).toEqual([]);

    // A second "FAQ" takes the next free name rather than replacing the first.
    const followUp = await run([PROMPT], result.messages);
    expect(followUp.filesChanged.sort()).toEqual(['content/faq-2.md', 'content/faq.md', 'mkdocs.yml']);
    expect(await read(workspace, 'content/faq.md')).toContain(DEMO_NOTE);
  });

  it('takes a follow-up’s request from the user’s words, not from the note the service puts first', async () => {
    const { result, workspace, run } = await runDemo(FILES);
    // What a follow-up after a merged pull request starts with (run/phases/follow-base.ts).
    const note =
      '(From agentjobs, before your next message: Pull request #1 of this job was merged, so this follow-up works on a new branch, agentjobs/x-2, made from main as it is now, and will open a new pull request. The earlier changes are in main already.)';
    const followUp = await run([`${note}\n\nAlso add a troubleshooting page`], result.messages);
    expect(followUp.filesChanged.sort()).toEqual(['README.md', 'docs/faq.md', 'docs/troubleshooting.md']);
    expect(await read(workspace, 'docs/troubleshooting.md')).toMatch(/^# Troubleshooting\n/);
    expect(await read(workspace, 'README.md')).toContain('- [Troubleshooting](docs/troubleshooting.md)\n');
    expect(followUp.summary).toMatch(/^Demo: add the page “Troubleshooting”\n/);
    expect(JSON.stringify(followUp.messages)).not.toContain('from-agentjobs');
  });

  it('continues the round a restart interrupted instead of writing a page about the restart', async () => {
    const { result, workspace, run } = await runDemo(FILES);
    // The conversation as saved after the step that wrote and linked the page, before the summary.
    const saved = result.messages.slice(0, -1);
    const kept = await run([RESUMED_WITH_FILES], saved);
    expect(kept.summary).toMatch(/^Demo: add the page “FAQ”\n/);
    expect(await workspace.listFiles('docs')).toEqual(['docs/faq.md', 'docs/install.md']);

    // When the files were lost, the same page and link are written again, and nothing else.
    const fresh = await fixture?.workspace();
    if (!fresh) throw new Error('no fixture');
    const redone = await runAgent({
      ...demoOptions(fresh),
      history: saved,
      prompts: [RESUMED_WITHOUT_FILES],
    });
    expect(redone.filesChanged.sort()).toEqual(['README.md', 'docs/faq.md']);
    expect(await read(fresh, 'docs/faq.md')).toMatch(/^# FAQ\n/);
    expect(redone.summary).toMatch(/^Demo: add the page “FAQ”\n/);
  });

  it('answers a repair round after failed checks instead of writing another page', () => {
    const request = `docs/faq.md: a problem\n\nFix every problem above (they were found by the project's checks on your changes), then answer with your summary again.`;
    const earlier = 'Demo: add the page “FAQ”\n\nThe agentjobs demo model made this change.';
    const move = nextMove({ number: 2, request, notes: [], answers: new Map(), earlier });
    // The answer keeps the work's title: it names the pull request.
    expect(move).toEqual({
      text: expect.stringMatching(
        /^Demo: add the page “FAQ”\n\nThe checks found problems in this change, and the agentjobs demo model cannot fix/,
      ),
    });
  });

  it('titles pages from the prompt’s words', () => {
    expect(titleFrom(PROMPT)).toBe('FAQ');
    expect(titleFrom('Write a new "Troubleshooting" guide')).toBe('Troubleshooting');
    expect(titleFrom('fix the typos in the install steps. Thanks!')).toBe(
      'Fix the typos in the install steps',
    );
    expect(titleFrom('   ')).toBe('Demo page');
  });
});
