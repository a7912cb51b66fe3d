/**
 * The deterministic checks of a task's result (docs/evaluation.md). Each expectation looks at the result
 * as files in a folder plus the paths the run changed, and returns null when it holds or one line
 * saying what is wrong; that line is what the eval's table shows as the first failure.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, normalize, relative } from 'node:path';
import { parse } from 'yaml';
import { type Change, checkProblems } from './checks.js';
import type { Expectation } from './task.js';

/** The result of a task's run: its files, and the paths changed against the site. */
export interface TaskResult {
  dir: string;
  changes: readonly Change[];
}

/** Checks `expectation` against `result`: null when it holds, else what is wrong. */
export async function check(expectation: Expectation, result: TaskResult): Promise<string | null> {
  const changed = result.changes.map((change) => change.path);
  if ('path' in expectation) return checkFile(expectation, result);
  if ('navigation' in expectation) return checkNavigation(expectation.navigation, result.dir);
  if ('replaced' in expectation) return checkReplaced(expectation.replaced, result.dir);
  if ('changedOnly' in expectation) {
    const allowed = (path: string) =>
      expectation.changedOnly.some((entry) =>
        entry.endsWith('/') ? path.startsWith(entry) : path === entry,
      );
    const extra = changed.filter((path) => !allowed(path));
    return extra.length ? `changedOnly: also changed ${extra.join(', ')}` : null;
  }
  if ('unchanged' in expectation) return changed.length ? `unchanged: changed ${changed.join(', ')}` : null;
  if ('checks' in expectation) {
    const problems = await checkProblems(result.dir, result.changes);
    const first = problems[0];
    return first ? `checks: ${first.path}${first.line ? `:${first.line}` : ''} ${first.message}` : null;
  }
  return checkLinks(expectation.paths ?? changed.filter((path) => /\.mdx?$/.test(path)), result.dir);
}

type FileExpectation = Extract<Expectation, { path: string }>;

async function checkFile(expectation: FileExpectation, result: TaskResult): Promise<string | null> {
  const { path } = expectation;
  const text = await readText(result.dir, path);
  if (expectation.exists === false) return text === null ? null : `${path}: exists, expected it gone`;
  if (text === null) return `${path}: does not exist`;
  for (const needle of expectation.contains ?? [])
    if (!text.includes(needle)) return `${path}: does not contain ${JSON.stringify(needle)}`;
  for (const needle of expectation.notContains ?? [])
    if (text.includes(needle)) return `${path}: still contains ${JSON.stringify(needle)}`;
  if (expectation.frontmatter) {
    const front = frontMatter(text);
    if (!front) return `${path}: has no front matter`;
    for (const [key, value] of Object.entries(expectation.frontmatter))
      if (JSON.stringify(front[key]) !== JSON.stringify(value))
        return `${path}: front matter ${key} is ${JSON.stringify(front[key])}, expected ${JSON.stringify(value)}`;
  }
  return null;
}

/** The front matter of a Markdown page, or null when it has none or it does not parse. */
function frontMatter(text: string): Record<string, unknown> | null {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  if (!match) return null;
  try {
    const value = parse(match[1] ?? '');
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Whether the site's navigation (Mintlify docs.json or mint.json, MkDocs mkdocs.yml) names `page`. */
async function checkNavigation(page: string, dir: string): Promise<string | null> {
  const wanted = stripExtension(page);
  for (const file of ['docs.json', 'mint.json']) {
    const text = await readText(dir, file);
    if (text === null) continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return `navigation: ${file} does not parse`;
    }
    const navigation = (value as { navigation?: unknown }).navigation ?? value;
    return strings(navigation).some((entry) => stripExtension(entry) === wanted)
      ? null
      : `navigation: ${file} does not name ${page}`;
  }
  const mkdocs = await readText(dir, 'mkdocs.yml');
  if (mkdocs !== null) {
    let value: unknown;
    try {
      value = parse(mkdocs, { logLevel: 'silent', strict: false });
    } catch {
      return 'navigation: mkdocs.yml does not parse';
    }
    const nav = (value as { nav?: unknown } | null)?.nav;
    return strings(nav).some((entry) => stripExtension(entry) === wanted)
      ? null
      : `navigation: mkdocs.yml does not name ${page}`;
  }
  return 'navigation: the site has no docs.json, mint.json or mkdocs.yml';
}

/** `from` is nowhere in the site's text files (but in `except`), and `to` is somewhere. */
async function checkReplaced(
  replaced: { from: string; to: string; except?: string[] },
  dir: string,
): Promise<string | null> {
  let found = false;
  for (const path of await listFiles(dir)) {
    if (replaced.except?.some((entry) => path === entry || path.startsWith(entry))) continue;
    const text = await readText(dir, path);
    if (text === null) continue;
    const line = text.split('\n').findIndex((each) => each.includes(replaced.from));
    if (line >= 0) return `replaced: ${path}:${line + 1} still says ${JSON.stringify(replaced.from)}`;
    if (text.includes(replaced.to)) found = true;
  }
  return found ? null : `replaced: ${JSON.stringify(replaced.to)} appears nowhere`;
}

/** Every relative link and image in `paths` leads to a file of the site. */
async function checkLinks(paths: string[], dir: string): Promise<string | null> {
  const files = new Set(await listFiles(dir));
  for (const path of paths) {
    const text = await readText(dir, path);
    if (text === null) continue;
    for (const match of text.matchAll(/\]\(([^)\s#?]+)[^)]*\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/')) continue;
      const resolved = normalize(join(dirname(path), decodeURI(target)));
      const candidates = [resolved, `${resolved}.md`, `${resolved}.mdx`, join(resolved, 'index.md')];
      if (!candidates.some((candidate) => files.has(candidate)))
        return `links: ${path} links to ${target}, which does not exist`;
    }
  }
  return null;
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

const stripExtension = (path: string) => path.replace(/^\.?\//, '').replace(/\.(md|mdx)$/, '');

async function readText(dir: string, path: string): Promise<string | null> {
  const data = await readFile(join(dir, path)).catch(() => null);
  if (!data || data.includes(0)) return null;
  return data.toString('utf8');
}

async function listFiles(dir: string, root = dir): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === '.git') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await listFiles(path, root)));
    else found.push(relative(root, path));
  }
  return found.sort();
}
