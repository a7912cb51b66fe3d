/**
 * The built-in checks (docs/architecture.md#the-runs-phases): `markdown`, `frontmatter`, `links`, `navigation`,
 * `syntax` and `conflicts`, run on what the job changed and on what points at it, so their cost
 * follows the size of the change, not of the repository:
 * - the pages the job added or changed are parsed (MDX compiled) and their front matter and links
 *   checked;
 * - the pages that linked to a file the job moved or deleted are found with one text search per
 *   removed file (`SiteTree.filesContaining`), and only their links to removed files are reported;
 * - a site's navigation is read when the job changed it or added or removed one of its pages;
 * - JSON and YAML files the job changed are parsed;
 * - every text file the job changed is searched for merge-conflict markers (markers.ts).
 */
import { BUILT_IN_CHECKS, type BuiltInCheck, type CheckProblem, type CheckResult } from '../domain/checks.js';
import { PARSE_FILE_MS, PARSE_RUN_MS, type ParseBudget, ParseRun, parseOffThread } from '../parse/pool.js';
import { checkFrontmatter } from './frontmatter.js';
import { checkLinks, type LinkContext } from './links.js';
import { loadSites } from './load-sites.js';
import { conflictMarkers } from './markers.js';
import { checkNavigation } from './navigation.js';
import type { ParsedPage } from './page.js';
import { basename, isPage } from './site.js';
import { isSyntaxChecked } from './syntax.js';
import type { Change, SiteTree } from './tree.js';

/** What the built-in checks run on. */
export interface BuiltInInput {
  tree: SiteTree;
  /** What the job changed against its base; the checks look no further than it leads. */
  changes: readonly Change[];
  /** The checks to run; all by default. */
  checks?: readonly BuiltInCheck[];
  /**
   * Time the parsing may take, per file and for the run (see src/parse/pool.ts); defaults are
   * generous. The run's time counts while its files are in a parse thread, not while they wait.
   */
  budget?: { fileMs?: number; runMs?: number };
  /** Ends the run's parsing early (its job ended); what is left is reported as not checked. */
  signal?: AbortSignal;
}

/** Referring pages read per removed file at most: a removed `index` page can be named by many. */
const MAX_REFERRERS = 500;

/**
 * Runs the built-in checks; never throws for what a page holds (a compiler fault is an `error`
 * result). Every parse runs in the parse pool, so a hostile file costs its time budget, not the
 * event loop; a file past it is a problem on that file.
 */
export async function runBuiltInChecks(input: BuiltInInput): Promise<CheckResult[]> {
  const enabled = new Set(input.checks ?? BUILT_IN_CHECKS);
  const { tree, changes } = input;
  const budget: ParseBudget = {
    fileMs: input.budget?.fileMs ?? PARSE_FILE_MS,
    run: new ParseRun(input.budget?.runMs ?? PARSE_RUN_MS, input.signal),
  };
  const map = await loadSites(tree, budget);
  const found: Record<BuiltInCheck, CheckProblem[]> = {
    markdown: [],
    frontmatter: [],
    links: [],
    navigation: [],
    syntax: [],
    conflicts: [],
  };
  const faults: string[] = [];
  const parsed = new Map<string, Promise<ParsedPage | null>>();
  const parse = (path: string, compile: boolean) => {
    let page = parsed.get(path);
    if (!page) {
      page = tree
        .read(path)
        .then((text) => (text === null ? null : parsePageOffThread(path, text, compile, budget)));
      parsed.set(path, page);
    }
    return page;
  };
  const contextFor = (path: string): LinkContext => ({
    files: map.files,
    site: map.siteOf(path),
    anchorsOf: async (target) => (await parse(target, false))?.anchors ?? null,
  });

  const present = changes.filter((change) => change.kind !== 'deleted' && map.files.has(change.path));
  const changedPages = present.filter((change) => isPage(change.path)).map((change) => change.path);
  const hidden = new Set<string>();
  for (const path of changedPages) {
    const page = await parse(path, enabled.has('markdown'));
    if (!page) continue;
    if (page.frontmatter?.hidden) hidden.add(path);
    if (page.fault) faults.push(page.fault);
    if (enabled.has('markdown')) found.markdown.push(...page.problems);
    // A page that could not be read at all (not even as Markdown) has nothing more to check.
    if (page.anchors === null) continue;
    if (enabled.has('frontmatter')) found.frontmatter.push(...checkFrontmatter(page, map.siteOf(path)));
    if (enabled.has('links')) found.links.push(...(await checkLinks(page, contextFor(path))));
  }

  const removed = new Set(changes.filter((change) => change.kind === 'deleted').map((change) => change.path));
  if (enabled.has('links') && removed.size > 0) {
    const before = new Set([...map.files, ...removed]);
    const changed = new Set(changedPages);
    const referrers = new Set<string>();
    for (const path of removed) {
      const found = await tree.filesContaining(
        searchTermOf(path),
        (file) => isPage(file) && !changed.has(file),
      );
      for (const file of found.slice(0, MAX_REFERRERS)) referrers.add(file);
    }
    for (const path of [...referrers].sort()) {
      const page = await parse(path, false);
      if (page) found.links.push(...(await checkLinks(page, contextFor(path), { removed, before })));
    }
  }

  if (enabled.has('navigation'))
    for (const site of map.sites)
      found.navigation.push(...checkNavigation(site, changes, map.siteOf, hidden));

  if (enabled.has('syntax')) {
    for (const change of present) {
      if (!isSyntaxChecked(change.path)) continue;
      const text = await tree.read(change.path);
      if (text === null) continue;
      const checked = await parseOffThread({ kind: 'syntax', path: change.path, text }, budget);
      found.syntax.push(
        ...(checked.ok ? checked.value : [{ path: change.path, line: null, message: checked.message }]),
      );
    }
  }

  if (enabled.has('conflicts')) {
    for (const change of present) {
      const text = await tree.read(change.path);
      if (text !== null) found.conflicts.push(...conflictMarkers(change.path, text));
    }
  }

  return BUILT_IN_CHECKS.filter((name) => enabled.has(name)).map((name) =>
    resultOf(name, found[name], name === 'markdown' ? faults : [], changedPages.length),
  );
}

/** A page parsed in the pool; one that could not be in budget holds only that problem. */
async function parsePageOffThread(
  path: string,
  text: string,
  compile: boolean,
  budget: ParseBudget,
): Promise<ParsedPage> {
  const parsed = await parseOffThread({ kind: 'page', path, text, compile }, budget);
  if (parsed.ok) return parsed.value;
  const problem = { path, line: null, message: parsed.message };
  return { path, problems: [problem], fault: null, frontmatter: null, links: [], anchors: null };
}

/**
 * What a link to `path` must contain: its name without the extension, or for an index page its
 * folder's name (`/guides` reaches `guides/index.mdx`).
 */
function searchTermOf(path: string): string {
  const stem = basename(path).replace(/\.[^.]+$/, '');
  if (stem !== 'index' && stem !== 'README') return stem;
  const folder = path.split('/').at(-2);
  return folder ?? stem;
}

function resultOf(
  name: BuiltInCheck,
  problems: CheckProblem[],
  faults: string[],
  pages: number,
): CheckResult {
  if (problems.length > 0) {
    const count = `${problems.length} problem${problems.length === 1 ? '' : 's'}`;
    return { name, status: 'failed', message: `${count} found.`, problems };
  }
  if (faults.length > 0) return { name, status: 'error', message: faults.join(' '), problems: [] };
  const scope =
    name === 'markdown' || name === 'frontmatter' ? ` in ${pages} changed page${pages === 1 ? '' : 's'}` : '';
  return { name, status: 'passed', message: `No problems${scope}.`, problems: [] };
}
