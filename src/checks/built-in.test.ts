import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BuiltInCheck, CheckProblem } from '../domain/checks.js';
import { runBuiltInChecks } from './built-in.js';
import { type Change, directoryTree } from './tree.js';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A fixture site in a fresh folder. */
function site(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'agentjobs-checks-'));
  roots.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

const modified = (...paths: string[]): Change[] => paths.map((path) => ({ path, kind: 'modified' }));

async function problems(root: string, changes: Change[], check?: BuiltInCheck): Promise<CheckProblem[]> {
  const results = await runBuiltInChecks({
    tree: directoryTree(root),
    changes,
    ...(check ? { checks: [check] } : {}),
  });
  return results.flatMap((result) => result.problems);
}

const MINTLIFY = {
  'docs.json': JSON.stringify(
    {
      $schema: 'https://mintlify.com/docs.json',
      name: 'Acme',
      navigation: {
        tabs: [
          {
            tab: 'Docs',
            groups: [
              { group: 'Start', pages: ['index', 'quickstart', 'guides/setup'] },
              { group: 'Guides', pages: ['guides/index', { group: 'Deep', pages: ['guides/deep/one'] }] },
            ],
          },
        ],
      },
      redirects: [{ source: '/old-start', destination: '/quickstart' }],
    },
    null,
    2,
  ),
  'index.mdx': '---\ntitle: Home\n---\n\nWelcome. See [the quickstart](/quickstart).\n',
  'quickstart.mdx': '---\ntitle: Quickstart\n---\n\n## Install the CLI\n\nRun it.\n\n## A & B\n\nBoth.\n',
  'guides/setup.mdx': '---\ntitle: Setup\n---\n\nRead [the quickstart](/quickstart#install-the-cli).\n',
  'guides/index.mdx': '---\ntitle: Guides\n---\n\nAll guides.\n',
  'guides/deep/one.mdx': '---\ntitle: One\n---\n\nOne.\n',
  'images/logo.png': 'PNG',
  'snippets/note.mdx': 'A shared note.\n',
};

describe('markdown', () => {
  it('reports an unclosed component with the line it opens on and what to do', async () => {
    const root = site({
      ...MINTLIFY,
      'quickstart.mdx': '---\ntitle: Q\n---\n\n# Q\n\n<Note>\nStay.\n\nMore.\n',
    });
    const found = await problems(root, modified('quickstart.mdx'), 'markdown');
    expect(found).toEqual([
      {
        path: 'quickstart.mdx',
        line: 7,
        message: expect.stringContaining('`<Note>` opened on line 7 is never closed'),
      },
    ]);
  });

  it('still checks the links of a page that does not compile, so every problem is told at once', async () => {
    const root = site({
      ...MINTLIFY,
      'quickstart.mdx': '---\ntitle: Q\n---\n\n<Note>\nSee [x](/missing-page).\n',
    });
    const found = await problems(root, modified('quickstart.mdx'));
    expect(found.map((problem) => [problem.line, problem.message.slice(0, 40)])).toEqual([
      [5, '`<Note>` opened on line 5 is never close'],
      [6, 'Link `/missing-page` leads to no page of'],
    ]);
  });

  it('reports a stray brace and a bad import with their lines', async () => {
    const root = site({
      ...MINTLIFY,
      'a.mdx': '---\ntitle: A\n---\n\nUse the { key.\n',
      'b.mdx': '---\ntitle: B\n---\nimport { Card from "/snippets/note.mdx"\n\nText\n',
    });
    const found = await problems(root, modified('a.mdx', 'b.mdx'), 'markdown');
    expect(found.map((problem) => [problem.path, problem.line])).toEqual([
      ['a.mdx', 5],
      ['b.mdx', 4],
    ]);
    expect(found[0]?.message).toMatch(/write `\\\{` for a literal brace/);
    expect(found[1]?.message).toMatch(/import\/export statement/);
  });

  it('leaves code blocks, inline code, comparisons and front matter braces alone', async () => {
    const root = site({
      ...MINTLIFY,
      'quickstart.mdx':
        '---\ntitle: "Use {braces}"\n---\n\n```jsx\n<Note>\n{ unclosed\n```\n\nInline `<Tabs>` and `{`.\n\n3 > 2.\n',
    });
    expect(await problems(root, modified('quickstart.mdx'))).toEqual([]);
  });

  it('parses Markdown as CommonMark: a stray `<` or `{` is text there', async () => {
    const root = site({
      'mkdocs.yml': 'site_name: X\n',
      'docs/index.md': '# Home\n\n<Note> and { are text.\n',
    });
    expect(await problems(root, modified('docs/index.md'))).toEqual([]);
  });
});

describe('nesting', () => {
  it('reports MDX nested past what the compiler can take as a problem on the page, not a compiler fault', async () => {
    const root = site({ ...MINTLIFY, 'deep.mdx': `${'<a>'.repeat(3000)}${'</a>'.repeat(3000)}\n` });
    const results = await runBuiltInChecks({
      tree: directoryTree(root),
      changes: modified('deep.mdx'),
      checks: ['markdown'],
    });
    expect(results).toEqual([
      {
        name: 'markdown',
        status: 'failed',
        message: '1 problem found.',
        problems: [
          { path: 'deep.mdx', line: null, message: expect.stringContaining('deep.mdx is nested too deeply') },
        ],
      },
    ]);
  });
});

describe('frontmatter', () => {
  it('reports front matter that is not YAML, with the line in the file', async () => {
    const root = site({
      ...MINTLIFY,
      'quickstart.mdx': '---\ntitle: Q\ndescription: a: b: c\n---\n\nText.\n',
    });
    const [problem] = await problems(root, modified('quickstart.mdx'), 'frontmatter');
    expect(problem).toMatchObject({ path: 'quickstart.mdx', line: 3 });
    expect(problem?.message).toMatch(/not valid YAML/);
  });

  it('needs a title on Mintlify pages, not on snippets or MkDocs pages', async () => {
    const root = site({
      ...MINTLIFY,
      'quickstart.mdx': '---\ndescription: x\n---\n\nText.\n',
      'snippets/note.mdx': 'No front matter.\n',
      'mkdocs/mkdocs.yml': 'site_name: X\n',
      'mkdocs/docs/page.md': '# Page\n',
    });
    const found = await problems(
      root,
      modified('quickstart.mdx', 'snippets/note.mdx', 'mkdocs/docs/page.md'),
      'frontmatter',
    );
    expect(found).toEqual([
      { path: 'quickstart.mdx', line: 1, message: expect.stringContaining('lacks `title`') },
    ]);
  });
});

describe('links', () => {
  it('accepts anchors, index pages, extensionless and redirected links, images and external URLs', async () => {
    const root = site({
      ...MINTLIFY,
      'guides/setup.mdx': [
        '---\ntitle: Setup\n---',
        '[a](/quickstart#install-the-cli) [b](/quickstart#a--b) [c](/quickstart#a-b) [d](/guides) [e](/guides/)',
        '[f](./deep/one) [g](../quickstart.mdx) [h](#setup-steps) [i](https://example.com/missing) [j](mailto:a@b.c)',
        '![logo](/images/logo.png) [k](/old-start) [l](/quickstart?tab=1)',
        '<Card title="x" href="/guides/deep/one">x</Card>',
        'import Note from "/snippets/note.mdx";',
        '',
        '## Setup steps',
        '',
        '```md\n[broken](/nowhere) <Tabs>\n```',
        '',
        'Inline `[x](/nowhere)`.',
      ].join('\n\n'),
    });
    expect(await problems(root, modified('guides/setup.mdx'))).toEqual([]);
  });

  it('reports missing pages, files and anchors, each with its line', async () => {
    const root = site({
      ...MINTLIFY,
      'guides/setup.mdx':
        '---\ntitle: Setup\n---\n\n[a](/missing-page)\n\n![b](../images/none.png)\n\n[c](/quickstart#nope)\n\n<Card href="/gone">x</Card>\n',
    });
    const found = await problems(root, modified('guides/setup.mdx'), 'links');
    expect(found.map((problem) => problem.line)).toEqual([5, 7, 9, 11]);
    expect(found[0]?.message).toMatch(/`\/missing-page` leads to no page of the site/);
    expect(found[1]?.message).toMatch(/leads to no file/);
    expect(found[2]?.message).toMatch(/`#nope` is not a heading of quickstart.mdx.*#install-the-cli/);
  });

  it('resolves MkDocs relative links against docs_dir and its index pages', async () => {
    const root = site({
      'mkdocs.yml': 'site_name: X\ndocs_dir: content\nnav:\n  - index.md\n  - Guide: guide/index.md\n',
      'content/index.md':
        '# Home\n\n[g](guide/index.md#usage) [h](guide/) [abs](/guide/) [bad](guide/none.md)\n',
      'content/guide/index.md': '# Guide\n\n## Usage {#usage}\n',
    });
    const found = await problems(root, modified('content/index.md'), 'links');
    expect(found).toEqual([
      { path: 'content/index.md', line: 3, message: expect.stringContaining('guide/none.md') },
    ]);
  });

  it('reports the pages that linked to a page the job deleted, and not their older faults', async () => {
    const root = site({
      ...MINTLIFY,
      'index.mdx': '---\ntitle: Home\n---\n\n[q](/quickstart)\n\n[old](/never-existed)\n',
      'guides/setup.mdx': '---\ntitle: Setup\n---\n\nNothing about the removed page.\n',
    });
    rmSync(join(root, 'quickstart.mdx'));
    const found = await problems(root, [{ path: 'quickstart.mdx', kind: 'deleted' }], 'links');
    expect(found).toEqual([{ path: 'index.mdx', line: 5, message: expect.stringContaining('/quickstart') }]);
  });
});

describe('navigation', () => {
  it('reports a new page no navigation names, and an entry whose page was moved', async () => {
    const root = site({
      ...MINTLIFY,
      'faq.mdx': '---\ntitle: FAQ\n---\n\nQ.\n',
      'guides/set-up.mdx': '---\ntitle: S\n---\n',
    });
    rmSync(join(root, 'guides/setup.mdx'));
    const changes: Change[] = [
      { path: 'faq.mdx', kind: 'added' },
      { path: 'guides/setup.mdx', kind: 'deleted' },
      { path: 'guides/set-up.mdx', kind: 'added' },
    ];
    const found = await problems(root, changes, 'navigation');
    expect(found).toEqual([
      { path: 'docs.json', line: expect.any(Number), message: expect.stringContaining('`guides/setup`') },
      { path: 'faq.mdx', line: null, message: expect.stringContaining('Add `faq` to docs.json') },
      { path: 'guides/set-up.mdx', line: null, message: expect.stringContaining('`guides/set-up`') },
    ]);
    expect(found[0]?.line).toBe(14);
  });

  it('reads the older mint.json and MkDocs nav, with custom tags in mkdocs.yml', async () => {
    const mint = site({
      'mint.json': JSON.stringify({ name: 'X', navigation: [{ group: 'G', pages: ['intro', 'missing'] }] }),
      'intro.mdx': '---\ntitle: I\n---\n',
    });
    expect(await problems(mint, modified('mint.json'), 'navigation')).toEqual([
      { path: 'mint.json', line: 1, message: expect.stringContaining('`missing`') },
    ]);
    const mkdocs = site({
      'mkdocs.yml':
        'site_name: X\nmarkdown_extensions:\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\nnav:\n  - Home: index.md\n  - Ext: https://example.com\n  - Gone: gone.md\n',
      'docs/index.md': '# Home\n',
      'docs/new.md': '# New\n',
    });
    const found = await problems(mkdocs, [...modified('mkdocs.yml'), { path: 'docs/new.md', kind: 'added' }]);
    expect(found).toEqual([
      { path: 'mkdocs.yml', line: 8, message: expect.stringContaining('`gone.md`') },
      { path: 'docs/new.md', line: null, message: expect.stringContaining('Add `new.md` to mkdocs.yml') },
    ]);
  });

  it('asks nothing of MkDocs sites without nav, nor of a change that adds no page', async () => {
    const root = site({
      'mkdocs.yml': 'site_name: X\n',
      'docs/index.md': '# Home\n',
      'docs/new.md': '# New\n',
    });
    expect(await problems(root, [{ path: 'docs/new.md', kind: 'added' }])).toEqual([]);
  });
});

describe('syntax', () => {
  it('reports JSON and YAML that do not parse, with their lines; JSON with comments is left alone', async () => {
    const root = site({
      'data/a.json': '{\n  "a": 1,\n}\n',
      'data/b.yml': 'a: 1\nb: c: d\n',
      'data/ok.yaml': '---\na: 1\n---\nb: !Custom 2\n',
      'tsconfig.json': '{ // comments\n}\n',
    });
    const found = await problems(
      root,
      modified('data/a.json', 'data/b.yml', 'data/ok.yaml', 'tsconfig.json'),
      'syntax',
    );
    expect(found.map((problem) => [problem.path, problem.line])).toEqual([
      ['data/a.json', 3],
      ['data/b.yml', 2],
    ]);
  });
});

describe('results', () => {
  it('gives one result per check, passed when nothing is wrong', async () => {
    const root = site(MINTLIFY);
    const results = await runBuiltInChecks({
      tree: directoryTree(root),
      changes: modified('quickstart.mdx'),
    });
    expect(results.map((result) => [result.name, result.status])).toEqual([
      ['markdown', 'passed'],
      ['frontmatter', 'passed'],
      ['links', 'passed'],
      ['navigation', 'passed'],
      ['syntax', 'passed'],
      ['conflicts', 'passed'],
    ]);
  });
});
