/**
 * Files a model can write that parsers choke on, at the workspace's file-size limit: the built-in
 * checks end with a readable problem on the file, and the event loop stays responsive throughout
 * (the parsing runs in the parse pool's worker threads, with a time budget per file). On the
 * event loop, each of these froze the process for seconds to minutes, or overflowed the stack.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import { runBuiltInChecks } from '../../src/checks/built-in.js';
import { closeParsePool } from '../../src/checks/index.js';
import { directoryTree } from '../../src/checks/tree.js';

/** The workspace's limit on a file the agent writes (and the checks read). */
const LIMIT = 512 * 1024;
/** Far above any pause a busy machine makes, far below what the parsers cost on the event loop. */
const MAX_LAG_MS = 2_000;

const roots: string[] = [];
afterAll(async () => {
  await closeParsePool();
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

const DOCS_JSON = JSON.stringify({
  $schema: 'https://mintlify.com/docs.json',
  navigation: { groups: [{ group: 'Start', pages: ['index'] }] },
});

/** A Mintlify site holding `files` besides its own. */
function site(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'agentjobs-hostile-parse-'));
  roots.push(root);
  const all = { 'docs.json': DOCS_JSON, 'index.mdx': '---\ntitle: Home\n---\n\nHello.\n', ...files };
  for (const [path, content] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

/** `unit` repeated up to the limit, then `tail`. */
const fill = (unit: string, tail = '') => unit.repeat(Math.floor((LIMIT - tail.length) / unit.length)) + tail;

/** Runs of 1, 2, 3, … backticks between letters: each run looks for its closing run of equal length. */
function backtickLadder(): string {
  let text = '';
  for (let run = 1; text.length + run + 1 <= LIMIT; run++) text += `${'`'.repeat(run)}a`;
  return text;
}

const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

/**
 * The checks' results on `path` of `files`, and the longest the event loop waited meanwhile. A file
 * that is only slow gets a short budget: how slow a ladder parses depends on the machine and the
 * Node line (Node 24 finished the bracket ladder in under the default 5 s once), and the test is
 * about what happens past the budget.
 */
async function checkWhileMeasuring(files: Record<string, string>, path: string, fileMs?: number) {
  const root = site(files);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = Date.now();
  try {
    const results = await runBuiltInChecks({
      tree: directoryTree(root),
      changes: [{ path, kind: 'modified' }],
      ...(fileMs ? { budget: { fileMs } } : {}),
    });
    return { results, lagMs: delay.max / 1e6, tookMs: Date.now() - started };
  } finally {
    delay.disable();
  }
}

/** The markdown check on every file of a site of `files` (each changed), within `budget`. */
function checkMarkdown(files: Record<string, string>, budget: { fileMs?: number; runMs?: number }) {
  return runBuiltInChecks({
    tree: directoryTree(site(files)),
    changes: Object.keys(files).map((path) => ({ path, kind: 'modified' as const })),
    checks: ['markdown'],
    budget,
  });
}

const cases: Array<{ name: string; path: string; text: string; check: string; says: RegExp }> = [
  {
    name: '80,000+ nested block quotes and a word',
    path: 'docs/quote.md',
    text: fill('>', ' word'),
    check: 'markdown',
    says: /docs\/quote\.md is nested too deeply .*simplify the nesting/,
  },
  {
    name: 'a ladder of opening brackets',
    path: 'docs/brackets.md',
    text: fill('[', 'a'),
    check: 'markdown',
    says: /docs\/brackets\.md is too slow to parse .*simplify the nesting/,
  },
  {
    name: 'a ladder of backtick runs',
    path: 'docs/ticks.mdx',
    text: backtickLadder(),
    check: 'markdown',
    says: /docs\/ticks\.mdx is too slow to parse .*simplify the nesting/,
  },
  {
    name: 'a docs.json 120,000 levels deep',
    path: 'docs.json',
    text: `{"$schema": "https://mintlify.com/docs.json", "navigation": ${deep(120_000)}}`,
    check: 'syntax',
    says: /docs\.json is nested too deeply .*simplify the nesting/,
  },
  {
    name: 'YAML front matter 200,000 levels deep',
    path: 'docs/front.mdx',
    text: `---\ntitle: Deep\nnested: ${deep(200_000)}\n---\n\nText.\n`,
    check: 'frontmatter',
    says: /The front matter is nested too deeply .*simplify the nesting/,
  },
  {
    name: 'a YAML file of compact sequences nested to the limit',
    path: 'config.yml',
    text: fill('- ', 'a'),
    check: 'syntax',
    says: /config\.yml is nested too deeply .*simplify the nesting/,
  },
];

describe('built-in checks on hostile files at the size limit', () => {
  it.each(cases)('$name: a readable problem on the file, the event loop never stalls', async (hostile) => {
    expect(hostile.text.length).toBeLessThanOrEqual(LIMIT);
    const slow = hostile.says.source.includes('too slow');
    const { results, lagMs } = await checkWhileMeasuring(
      { [hostile.path]: hostile.text },
      hostile.path,
      slow ? 300 : undefined,
    );
    const result = results.find((candidate) => candidate.name === hostile.check);
    expect(result?.status).toBe('failed');
    expect(result?.problems).toContainEqual(
      expect.objectContaining({ path: hostile.path, message: expect.stringMatching(hostile.says) }),
    );
    expect(lagMs).toBeLessThan(MAX_LAG_MS);
  });

  it('runs out of its run budget with a problem on each file left, not a stalled or failed run', async () => {
    const results = await checkMarkdown(
      { 'docs/a.md': fill('[', 'a'), 'docs/b.md': fill('[', 'b') },
      { fileMs: 60_000, runMs: 1_000 },
    );
    // A run's files take turns in the pool: how far the first gets inside the budget depends on the
    // machine (a faster Node parses it whole), but the second is always left, and each file left is
    // named as not checked, never a stall or a failed run.
    const problems = results[0]?.problems ?? [];
    expect(problems.map((problem) => problem.path)).toContain('docs/b.md');
    for (const problem of problems) {
      expect(['docs/a.md', 'docs/b.md']).toContain(problem.path);
      expect(problem).toMatchObject({
        line: null,
        message: expect.stringContaining(`${problem.path} was not checked`),
      });
    }
  });

  it('still checks an ordinary page after a worker was stopped for a slow one', async () => {
    const results = await checkMarkdown(
      { 'docs/slow.md': fill('[', 'a'), 'docs/fine.mdx': '---\ntitle: Fine\n---\n\n<Note>\n' },
      { fileMs: 1_000 },
    );
    expect(results[0]?.problems.map((problem) => problem.path)).toEqual(['docs/slow.md', 'docs/fine.mdx']);
    expect(results[0]?.problems[1]?.message).toContain('`<Note>` opened on line 5 is never closed');
  });

  it('reads a `$ref` fan-out once per file and names it: 9 files, each referencing the next 40 times, 8 deep', async () => {
    // docs.json references nav/1.json 40 times, nav/1.json references nav/2.json 40 times, … down to
    // nav/8.json, which names the one page: Mintlify would copy nav/8.json in 40^8 times.
    const refs = (target: string) => Array.from({ length: 40 }, () => ({ $ref: target }));
    const files: Record<string, string> = {
      'docs.json': JSON.stringify({
        $schema: 'https://mintlify.com/docs.json',
        navigation: { groups: [{ group: 'Start', pages: refs('nav/1.json') }] },
      }),
      'nav/8.json': JSON.stringify(['index']),
    };
    for (let level = 1; level < 8; level++)
      files[`nav/${level}.json`] = JSON.stringify(refs(`${level + 1}.json`));
    const root = site(files);
    const results = await runBuiltInChecks({
      tree: directoryTree(root),
      changes: [
        { path: 'docs.json', kind: 'modified' },
        ...Array.from({ length: 8 }, (_, index) => ({
          path: `nav/${index + 1}.json`,
          kind: 'added' as const,
        })),
        { path: 'index.mdx', kind: 'modified' },
      ],
      // Short enough that re-reading every reference runs out of it; reading each file once does not.
      budget: { runMs: 10_000 },
    });
    const byName = Object.fromEntries(results.map((result) => [result.name, result]));
    // Every file was checked: nothing ran out of time.
    for (const result of results)
      for (const problem of result.problems) expect(problem.message).not.toMatch(/was not checked/);
    expect(byName.markdown).toMatchObject({ status: 'passed', message: 'No problems in 1 changed page.' });
    expect(byName.syntax?.status).toBe('passed');
    // One problem, on docs.json, that names the count (40 + 40² + … + 40⁸) and the repeated references.
    expect(byName.navigation?.problems).toEqual([
      {
        path: 'docs.json',
        line: 1,
        message: expect.stringMatching(
          /copy files into the navigation 6,721,641,025,640 times \(at most 1,000\).*nav\/1\.json is referenced 40 times in docs\.json; nav\/2\.json is referenced 40 times in nav\/1\.json/,
        ),
      },
    ]);
  }, 60_000);

  it('shares the pool fairly: three runs of slow files leave a fourth run of ordinary pages all checked', async () => {
    const slowPages = ['docs/a.md', 'docs/b.md', 'docs/c.md'];
    const ordinaryPages = Array.from({ length: 8 }, (_, index) => `guide/page-${index}.md`);
    // The slow runs spend 1 s (the file's limit) on each of their files; the ordinary run may spend
    // 4 s, and needs milliseconds, however long its files wait for a thread behind the others'.
    const check = (pages: string[], root: string, runMs: number) =>
      runBuiltInChecks({
        tree: directoryTree(root),
        changes: pages.map((path) => ({ path, kind: 'modified' as const })),
        checks: ['markdown'],
        budget: { fileMs: 1_000, runMs },
      });
    const slow = [1, 2, 3].map(() =>
      check(slowPages, site(Object.fromEntries(slowPages.map((path) => [path, fill('[', path)]))), 10_000),
    );
    const ordinary = check(
      ordinaryPages,
      site(
        Object.fromEntries(
          ordinaryPages.map((path) => [path, `# ${path}\n\nSee [the home page](/index).\n`]),
        ),
      ),
      4_000,
    );
    const [ordinaryResults, ...slowResults] = await Promise.all([ordinary, ...slow]);
    expect(ordinaryResults).toEqual([
      { name: 'markdown', status: 'passed', message: 'No problems in 8 changed pages.', problems: [] },
    ]);
    // Each slow run's files are its own problems, each past the file's limit.
    for (const results of slowResults)
      expect(results[0]?.problems).toEqual(
        slowPages.map((path) => ({
          path,
          line: null,
          message: expect.stringContaining(`${path} is too slow to parse`),
        })),
      );
  }, 120_000);
});
