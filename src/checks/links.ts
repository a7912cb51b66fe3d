/**
 * The `links` check: a page's relative links and images lead to files, its site-absolute links
 * (`/guides/setup`) to pages the site serves (extension optional, a folder's index page, a Mintlify
 * redirect), its imports to files, and its anchors to headings of the target; in an mdBook, a link
 * to a page's `.html` leads to its source. External URLs are never fetched.
 */
import type { CheckProblem } from '../domain/checks.js';
import { resolveBookLink } from './mdbook.js';
import type { PageLink, ParsedPage } from './page.js';
import { normalizeAnchor } from './page.js';
import { dirname, isExternal, isPage, join, resolvePage, type Site } from './site.js';

/** What resolving links needs: the files that exist and, for anchors, a target page's anchors. */
export interface LinkContext {
  files: ReadonlySet<string>;
  site: Site;
  /** The anchors of a page, or null when they cannot be known (it does not parse). */
  anchorsOf(path: string): Promise<Set<string> | null>;
}

/** Extensions an import may leave out. */
const IMPORT_EXTENSIONS = ['', '.mdx', '.md', '.jsx', '.js', '.tsx', '.ts'];

/** Where a link leads: the file, or null when nothing is there; `skip` for what is not checked. */
export function resolveLink(
  link: PageLink,
  from: string,
  files: ReadonlySet<string>,
  site: Site,
): { file: string | null; path: string; anchor: string } | 'skip' {
  if (isExternal(link.url)) return 'skip';
  const hash = link.url.indexOf('#');
  const anchor = hash < 0 ? '' : link.url.slice(hash + 1);
  let path = (hash < 0 ? link.url : link.url.slice(0, hash)).replace(/\?.*$/, '');
  try {
    path = decodeURI(path);
  } catch {}
  if (path === '') return { file: from, path, anchor };
  if (link.kind === 'import') {
    // A package (`react`, `@org/ui`) is not a file of the repository.
    if (!path.startsWith('.') && !path.startsWith('/')) return 'skip';
    const base = path.startsWith('/') ? join(site.root, path) : join(dirname(from), path);
    return { file: IMPORT_EXTENSIONS.map((e) => base + e).find((c) => files.has(c)) ?? null, path, anchor };
  }
  if (path.startsWith('/')) {
    const file = resolvePage(files, site.root, path);
    if (file || site.redirects.has(path.replace(/^\/+|\/+$/g, '')))
      return { file: file ?? from, path, anchor: file ? anchor : '' };
    return { file: null, path, anchor };
  }
  const target = join(dirname(from), path);
  if (target.startsWith('..')) return { file: null, path, anchor };
  const file = resolvePage(files, '', target) ?? resolveBookLink(files, from, path);
  if (file === 'outside') return 'skip';
  return { file, path, anchor };
}

/**
 * The problems of a page's links. With `onlyTo`, only links that led to one of those paths before
 * the job removed them are reported: a page the job did not change is not blamed for older faults.
 */
export async function checkLinks(
  page: ParsedPage,
  context: LinkContext,
  onlyTo?: { removed: ReadonlySet<string>; before: ReadonlySet<string> },
): Promise<CheckProblem[]> {
  const problems: CheckProblem[] = [];
  for (const link of page.links) {
    const resolved = resolveLink(link, page.path, context.files, context.site);
    if (resolved === 'skip') continue;
    if (onlyTo) {
      const before = resolveLink(link, page.path, onlyTo.before, context.site);
      if (before === 'skip' || !before.file || !onlyTo.removed.has(before.file) || resolved.file) continue;
    }
    if (!resolved.file) {
      problems.push({
        path: page.path,
        line: link.line,
        message: missingTarget(link, resolved.path, context.site),
      });
      continue;
    }
    if (!resolved.anchor || !isPage(resolved.file)) continue;
    const anchors = resolved.file === page.path ? page.anchors : await context.anchorsOf(resolved.file);
    if (!anchors || anchors.has(normalizeAnchor(resolved.anchor))) continue;
    const known = [...anchors].slice(0, 12).map((a) => `#${a}`);
    problems.push({
      path: page.path,
      line: link.line,
      message: `\`#${resolved.anchor}\` is not a heading of ${resolved.file}. ${
        known.length ? `Its headings' anchors: ${known.join(', ')}.` : 'It has no headings.'
      } Point the link at one of them, or drop the anchor.`,
    });
  }
  return problems;
}

function missingTarget(link: PageLink, path: string, site: Site): string {
  const what = link.kind === 'image' ? 'Image' : link.kind === 'import' ? 'Import' : 'Link';
  if (path.startsWith('/') && link.kind !== 'import') {
    const where = site.root ? ` under ${site.root}/` : '';
    return `${what} \`${link.url}\` leads to no page of the site (no such .mdx or .md file, or folder with an index page${where}). Point it at an existing page, or create the page.`;
  }
  return `${what} \`${link.url}\` leads to no file: nothing exists at that path relative to this file. Fix the path, or create the file.`;
}
