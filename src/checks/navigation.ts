/**
 * The `navigation` check: a site's navigation (Mintlify `docs.json`/`mint.json`, MkDocs `nav` in
 * `mkdocs.yml`) names only pages that exist, and a page the job added is named by it. Run when the
 * job changed the configuration or added or removed a page of the site; when it only removed
 * pages, only entries naming those pages are reported.
 */
import type { CheckProblem } from '../domain/checks.js';
import { isRepositoryDoc, isSnippet } from './frontmatter.js';
import { basename, isPage, isUnder, type Site } from './site.js';
import type { Change } from './tree.js';

export function checkNavigation(site: Site, changes: readonly Change[]): CheckProblem[] {
  if (!site.config || !site.navigation) return [];
  const inSite = changes.filter((change) => isPage(change.path) && isUnder(change.path, site.root));
  const configChanged = changes.some((change) => change.path === site.config && change.kind !== 'deleted');
  if (!configChanged && inSite.length === 0) return [];
  const removed = new Set(inSite.filter((c) => c.kind === 'deleted').map((c) => c.path));
  const problems: CheckProblem[] = [];
  for (const entry of site.navigation) {
    if (entry.file) continue;
    // Without a change to the configuration, only what the job's removals broke is its to fix.
    if (!configChanged && !namesRemoved(entry.page, site, removed)) continue;
    problems.push({
      path: site.config,
      line: entry.line,
      message: `The navigation names \`${entry.page}\`, but no such page exists${site.kind === 'mintlify' ? ` (${entry.page}.mdx or .md${site.root ? ` under ${site.root}/` : ''})` : ''}. Point the entry at the page's new path, or remove it.`,
    });
  }
  const named = new Set(site.navigation.map((entry) => entry.file));
  for (const change of inSite) {
    if (change.kind !== 'added' || named.has(change.path) || isSnippet(change.path, site)) continue;
    if (isRepositoryDoc(change.path) || basename(change.path).startsWith('_')) continue;
    const page = pageName(change.path, site);
    problems.push({
      path: change.path,
      line: null,
      message: `This new page is not in the site's navigation, so readers cannot find it. Add \`${page}\` to ${site.config} where it belongs.`,
    });
  }
  return problems;
}

/** How the navigation names a file: Mintlify without the extension, MkDocs relative to `docs_dir`. */
function pageName(path: string, site: Site): string {
  const inSite = site.root ? path.slice(site.root.length + 1) : path;
  return site.kind === 'mintlify' ? inSite.replace(/\.mdx?$/, '') : inSite;
}

function namesRemoved(page: string, site: Site, removed: ReadonlySet<string>): boolean {
  const base = `${site.root ? `${site.root}/` : ''}${page.replace(/^\.?\//, '')}`;
  return [base, `${base}.mdx`, `${base}.md`].some((candidate) => removed.has(candidate));
}
