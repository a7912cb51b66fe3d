/**
 * The checks agree with the framework (issue 28): Mintlify's `$ref` and navigation forms, MkDocs'
 * `nav` and `docs_dir`, and which files each publishes as pages. The fixtures are small
 * reconstructions of what real sites do (a localized Mintlify site whose languages live in files
 * `docs.json` pulls in, agent skill files and `.mintlify/` instructions beside the pages).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BuiltInCheck } from '../domain/checks.js';
import { runBuiltInChecks } from './built-in.js';
import { type Change, directoryTree } from './tree.js';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function site(files: Record<string, string | object>): string {
  const root = mkdtempSync(join(tmpdir(), 'agentjobs-frameworks-'));
  roots.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
  return root;
}

const page = (title: string) => `---\ntitle: ${title}\n---\n\nText.\n`;
const added = (...paths: string[]): Change[] => paths.map((path) => ({ path, kind: 'added' }));
const modified = (...paths: string[]): Change[] => paths.map((path) => ({ path, kind: 'modified' }));

/** `check`'s problems as `path:line` and the first five words of the message. */
async function found(root: string, changes: Change[], check: BuiltInCheck): Promise<string[]> {
  const [result] = await runBuiltInChecks({ tree: directoryTree(root), changes, checks: [check] });
  return (result?.problems ?? []).map(
    (p) => `${p.path}:${p.line} ${p.message.split(' ').slice(0, 5).join(' ')}`,
  );
}

describe("Mintlify's $ref", () => {
  const localized = {
    'docs.json': {
      $schema: 'https://mintlify.com/docs.json',
      navigation: {
        languages: [
          { language: 'en', groups: [{ group: 'Start', pages: ['index'] }] },
          { $ref: './i18n/fr.json' },
        ],
      },
      redirects: { $ref: './redirects.json' },
    },
    // A nested reference resolves relative to the file that holds it; pages stay site-relative.
    'i18n/fr.json': { language: 'fr', groups: [{ group: 'Démarrer', pages: { $ref: './fr-pages.json' } }] },
    'i18n/fr-pages.json': ['fr/index', 'fr/guide'],
    'redirects.json': [{ source: '/old', destination: '/index' }],
    'index.mdx': page('Home'),
    'fr/index.mdx': page('Accueil'),
    'fr/guide.mdx': `${page('Guide')}\nVoir [l'ancienne page](/old).\n`,
  };

  it('finds the pages named in files docs.json pulls in, and their redirects', async () => {
    const root = site(localized);
    const changes = added('index.mdx', 'fr/index.mdx', 'fr/guide.mdx');
    expect(await found(root, changes, 'navigation')).toEqual([]);
    expect(await found(root, changes, 'links')).toEqual([]);
  });

  it('reports an entry of a referenced file that names no page, on that file', async () => {
    const root = site({ ...localized, 'i18n/fr-pages.json': ['fr/index', 'fr/guide', 'fr/missing'] });
    expect(await found(root, modified('i18n/fr-pages.json'), 'navigation')).toEqual([
      'i18n/fr-pages.json:4 The navigation names `fr/missing`, but',
    ]);
  });

  it('refuses a $ref that leaves the repository, and one that leads to no file', async () => {
    const root = site({
      'docs/docs.json': {
        navigation: {
          languages: [{ $ref: '../../outside.json' }, { $ref: '/etc/passwd' }, { $ref: 'nope.json' }],
        },
      },
      'outside.json': { pages: ['index'] },
    });
    const problems = await found(root, modified('docs/docs.json'), 'navigation');
    expect(problems).toEqual([
      'docs/docs.json:5 `$ref` `../../outside.json` leads outside the',
      'docs/docs.json:8 `$ref` `/etc/passwd` leads outside the',
      'docs/docs.json:11 `$ref` `nope.json` leads to no',
    ]);
  });

  it('stops at a cycle and says where', async () => {
    const root = site({
      'docs.json': { navigation: { $ref: 'nav/a.json' } },
      'nav/a.json': { tabs: [{ tab: 'A', pages: ['index'] }, { $ref: 'b.json' }] },
      'nav/b.json': { tab: 'B', pages: ['index'], groups: [{ $ref: './a.json' }] },
      'index.mdx': page('Home'),
    });
    expect(await found(root, modified('docs.json'), 'navigation')).toEqual([
      'nav/b.json:8 `$ref` `./a.json` leads back to',
    ]);
  });
});

describe('navigation forms', () => {
  it('reads every form Mintlify documents, and mint.json before it', async () => {
    const names = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
    const pages = Object.fromEntries(names.map((name) => [`${name}.mdx`, page(name)]));
    const root = site({
      'docs.json': {
        navigation: {
          products: [
            {
              product: 'P',
              versions: [
                {
                  version: 'v1',
                  tabs: [{ tab: 'T', anchors: [{ anchor: 'A', groups: [{ group: 'G', pages: ['one'] }] }] }],
                },
                {
                  version: 'v2',
                  dropdowns: [
                    { dropdown: 'D', pages: ['two', { group: 'N', root: 'three', pages: ['four'] }] },
                  ],
                },
              ],
            },
            // An OpenAPI operation and an external link are entries, not files.
            {
              product: 'Q',
              pages: ['five', 'GET /users', 'openapi.json POST /items', 'https://example.com'],
            },
          ],
          global: { anchors: [{ anchor: 'Blog', href: 'https://example.com/blog' }] },
        },
      },
      'old/mint.json': {
        name: 'Old',
        navigation: [{ group: 'Start', pages: ['six', { group: 'More', pages: ['seven'] }] }],
        tabs: [{ name: 'API', url: 'api' }],
      },
      ...pages,
      'old/six.mdx': page('six'),
      'old/seven.mdx': page('seven'),
      'eight.mdx': page('eight'),
    });
    const changes = [
      ...modified('docs.json', 'old/mint.json'),
      ...added('one.mdx', 'four.mdx', 'old/seven.mdx', 'eight.mdx'),
    ];
    expect(await found(root, changes, 'navigation')).toEqual(['eight.mdx:null This new page is not']);
  });

  it("reads MkDocs' nested sections under docs_dir", async () => {
    const root = site({
      'mkdocs.yml':
        'site_name: A\ndocs_dir: content\nnav:\n  - Home: index.md\n  - Guides:\n    - guides/a.md\n    - Deep:\n      - Last: guides/deep/b.md\n  - Out: https://example.com\n',
      'content/index.md': '# Home\n',
      'content/guides/a.md': '# A\n',
      'content/guides/deep/b.md': '# B\n',
      'content/guides/c.md': '# C\n',
      'README.md': '# Repository\n',
      'notes/plan.md': '# Plan\n',
    });
    const changes = [
      ...modified('mkdocs.yml'),
      ...added('content/guides/deep/b.md', 'content/guides/c.md', 'notes/plan.md'),
    ];
    expect(await found(root, changes, 'navigation')).toEqual([
      'content/guides/c.md:null This new page is not',
    ]);
  });

  it('counts every page under docs_dir as in the site when MkDocs has no nav', async () => {
    const root = site({
      'mkdocs.yml': 'site_name: A\n',
      'docs/index.md': '# Home\n',
      'docs/new.md': '# New\n',
    });
    expect(await found(root, added('docs/new.md'), 'navigation')).toEqual([]);
  });
});

describe('only files the framework publishes are pages', () => {
  it('asks neither a title nor a place in the navigation of what Mintlify does not publish', async () => {
    const root = site({
      'docs.json': { navigation: { groups: [{ group: 'G', pages: ['index'] }] } },
      'index.mdx': page('Home'),
      '.mintlify/AGENTS.md': '# How to write here\n',
      '.claude/skills/writer/SKILL.md': '---\nname: writer\n---\n\n# Skill\n',
      '.github/pull_request_template.md': '## What changed\n',
      'snippets/note.mdx': 'A reused note.\n',
      'node_modules/pkg/readme.md': '# Package\n',
      'README.md': '# The docs repository\n',
      'CONTRIBUTING.md': '# Contributing\n',
      'skill.md': '---\nname: acme\n---\n',
      'skills/api/SKILL.md': '# API skill\n',
      'drafts/untitled.mdx': 'No front matter.\n',
      // Mintlify's hidden page: published, out of the navigation on purpose.
      'support.mdx': '---\ntitle: Support\nhidden: true\n---\n',
      // A page kept out of search engines is reached only by a link, like a hidden one.
      'preview.mdx': '---\ntitle: Preview\nnoindex: true\n---\n',
    });
    const changes = added(
      '.mintlify/AGENTS.md',
      '.claude/skills/writer/SKILL.md',
      '.github/pull_request_template.md',
      'snippets/note.mdx',
      'README.md',
      'CONTRIBUTING.md',
      'skill.md',
      'skills/api/SKILL.md',
      'drafts/untitled.mdx',
      'support.mdx',
      'preview.mdx',
    );
    // A page Mintlify serves still needs both.
    expect(await found(root, changes, 'frontmatter')).toEqual([
      'drafts/untitled.mdx:1 The page has no front',
    ]);
    expect(await found(root, changes, 'navigation')).toEqual([
      'drafts/untitled.mdx:null This new page is not',
    ]);
  });

  it("leaves out what the site's .mintignore excludes, in .gitignore syntax", async () => {
    const root = site({
      'docs/docs.json': { navigation: { groups: [{ group: 'G', pages: ['index'] }] } },
      'docs/.mintignore': '# drafts stay in the repository\ndrafts/\n*.draft.mdx\n!keep.draft.mdx\n',
      'docs/index.mdx': page('Home'),
      'docs/drafts/idea.mdx': 'No front matter.\n',
      'docs/guide.draft.mdx': 'No front matter.\n',
      'docs/keep.draft.mdx': 'No front matter.\n',
      // The ignore file's patterns are relative to the site's root, not the repository's.
      'drafts/outside.mdx': 'No front matter.\n',
    });
    const changes = added('docs/drafts/idea.mdx', 'docs/guide.draft.mdx', 'docs/keep.draft.mdx');
    expect(await found(root, changes, 'frontmatter')).toEqual([
      'docs/keep.draft.mdx:1 The page has no front',
    ]);
    expect(await found(root, changes, 'navigation')).toEqual([
      'docs/keep.draft.mdx:null This new page is not',
    ]);
  });

  it('leaves out what MkDocs excludes by default: dot-folders and templates/', async () => {
    const root = site({
      'mkdocs.yml': 'site_name: A\nnav:\n  - index.md\n',
      'docs/index.md': '# Home\n',
      'docs/.drafts/idea.md': '# Idea\n',
      'docs/templates/page.md': '# Template\n',
    });
    expect(await found(root, added('docs/.drafts/idea.md', 'docs/templates/page.md'), 'navigation')).toEqual(
      [],
    );
  });
});

describe('mdBook links', () => {
  // A book in src/ with an older edition nested in its folder, published under it (book/2018/).
  const books = {
    'book.toml': '[book]\ntitle = "Guide"\n',
    'src/SUMMARY.md': '# Summary\n\n[Cover](cover.md)\n- [Setup](setup.md)\n',
    'src/cover.md': '# Cover\n',
    'src/setup.md':
      '# Setup\n\n<a id="old-install"></a>\n\n## Install\n\nSee [the cover](cover.html), [the API](../std/index.html) and [old](setup.html#old-install).\n',
    '2018/book.toml': '[book]\ntitle = "Guide (2018)"\n',
    '2018/src/setup.md':
      '# Setup\n\nMoved to [the current edition](../setup.html#install); [start](../index.html).\n',
  };

  it("leads a page's .html to its source, across a nested book, and skips what lies beyond the outermost", async () => {
    const root = site(books);
    expect(await found(root, modified('src/setup.md', '2018/src/setup.md'), 'links')).toEqual([]);
  });

  it('still reports an .html link to no page, and an anchor no heading or HTML id makes', async () => {
    const root = site({
      ...books,
      '2018/src/setup.md': '# Setup\n\n[Gone](../gone.html) and [where](../setup.html#missing).\n',
    });
    expect(await found(root, modified('2018/src/setup.md'), 'links')).toEqual([
      '2018/src/setup.md:3 Link `../gone.html` leads to no',
      '2018/src/setup.md:3 `#missing` is not a heading',
    ]);
  });
});
