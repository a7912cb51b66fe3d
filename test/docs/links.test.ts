import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import GithubSlugger from 'github-slugger';
import { afterAll, describe, expect, it } from 'vitest';
import { closeParsePool, runBuiltInChecks } from '../../src/checks/index.js';
import type { SiteTree } from '../../src/checks/tree.js';

const root = path.resolve(import.meta.dirname, '../..');

/** The repository's files as git sees them (tracked, and new files not ignored), read from disk. */
function repositoryTree(): SiteTree {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file && fs.existsSync(path.join(root, file)))
    .sort();
  const read = async (file: string) => {
    try {
      return fs.readFileSync(path.join(root, file), 'utf8');
    } catch {
      return null;
    }
  };
  return {
    files: async () => files,
    read,
    async filesContaining(text, include) {
      const found: string[] = [];
      for (const file of files) if (include(file) && (await read(file))?.includes(text)) found.push(file);
      return found;
    },
  };
}

/** The project's own documentation: the README, the guides, and the other Markdown at the top. */
function documentationPages(tree: string[]): string[] {
  return tree.filter((file) => /^(docs\/[^/]+|[^/]+)\.md$/.test(file));
}

afterAll(() => closeParsePool());

describe("the project's documentation", () => {
  it('has every relative link and anchor leading somewhere (checked by our own links check)', async () => {
    const tree = repositoryTree();
    const pages = documentationPages(await tree.files());
    expect(pages).toContain('README.md');
    expect(pages.length).toBeGreaterThan(10);
    const [links] = await runBuiltInChecks({
      tree,
      changes: pages.map((page) => ({ path: page, kind: 'added' as const })),
      checks: ['links'],
    });
    expect(links?.name).toBe('links');
    expect(links?.problems ?? []).toEqual([]);
    expect(links?.status).toBe('passed');
  });

  it('a broken link or anchor is found (the check above can fail)', async () => {
    const base = repositoryTree();
    const page = 'docs/__probe.md';
    const probe = '[gone](missing-page.md) and [no such heading](../README.md#no-such-heading)\n';
    const tree: SiteTree = {
      ...base,
      files: async () => [...(await base.files()), page].sort(),
      read: async (file) => (file === page ? probe : base.read(file)),
    };
    const [links] = await runBuiltInChecks({
      tree,
      changes: [{ path: page, kind: 'added' }],
      checks: ['links'],
    });
    expect(links?.problems.map((problem) => problem.path)).toEqual([page, page]);
  });

  it('the README is a front page: at most 300 lines, with a link to every guide in docs/', () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    const guides = fs.readdirSync(path.join(root, 'docs')).filter((file) => file.endsWith('.md'));
    expect(guides.length).toBeGreaterThan(15);
    expect(guides.filter((guide) => !readme.includes(`](docs/${guide}`))).toEqual([]);
    expect(readme).toContain('](CONTRIBUTING.md)');
  });

  it('has the code point only to documents in the repository, at headings they have', () => {
    const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
      cwd: root,
      encoding: 'utf8',
    })
      .split('\0')
      .filter((file) => /^(src|test|bench|scripts)\/.*\.(ts|mjs|cjs|js)$/.test(file));
    // The contract this project was first built to lives outside it; the code must not send a reader there.
    const outside = new RegExp(`\\b${'DESI'}GN\\b`);
    const anchorsOf = (file: string) => {
      const slugger = new GithubSlugger();
      const text = fs.readFileSync(path.join(root, file), 'utf8').replace(/```[\s\S]*?```/g, '');
      return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => slugger.slug(match[1] ?? '')));
    };
    const problems: string[] = [];
    let pointers = 0;
    for (const file of tracked) {
      const text = fs.readFileSync(path.join(root, file), 'utf8');
      if (outside.test(text)) problems.push(`${file} cites a document outside the repository`);
      // Comments only: tests name pages of their own fixture repositories (`docs/index.md`) in strings.
      const comments = text
        .split('\n')
        .filter((line) => /^\s*(\/\/|\/\*|\*)/.test(line))
        .join('\n');
      // A pointer is in parentheses, or carries an anchor; a path in quotes or prose is an example.
      for (const match of comments.matchAll(
        /\((docs\/[a-z-]+\.md|CONTRIBUTING\.md)(?:#([a-z0-9-]+))?|\b(docs\/[a-z-]+\.md)#([a-z0-9-]+)/g,
      )) {
        const target = match[1] ?? match[3];
        const anchor = match[2] ?? match[4];
        pointers++;
        if (!target || !fs.existsSync(path.join(root, target)))
          problems.push(`${file}: ${target} does not exist`);
        else if (anchor && !anchorsOf(target).has(anchor))
          problems.push(`${file}: ${target} has no #${anchor}`);
      }
    }
    expect(problems).toEqual([]);
    expect(pointers).toBeGreaterThan(100);
  });
});
