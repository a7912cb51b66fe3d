/**
 * What a repository's documentation site looks like to the checks: where its pages live (the
 * folder of Mintlify's `docs.json`/`mint.json`, MkDocs' `docs_dir`), which pages its navigation
 * names (with the line that names each), and which page a link's path lands on.
 */
import type { CheckProblem } from '../domain/checks.js';
import type { MkdocsConfig } from './site-config.js';

/** Extensions of the files that are pages. */
export const PAGE_EXTENSIONS = ['.mdx', '.md'] as const;

export const isPage = (path: string) => PAGE_EXTENSIONS.some((extension) => path.endsWith(extension));

export const MINTLIFY_CONFIGS = ['docs.json', 'mint.json'];
export const MKDOCS_CONFIGS = ['mkdocs.yml', 'mkdocs.yaml'];

/** One entry of a site's navigation: the page as written, the line, and the file it names if any. */
export interface NavigationEntry {
  page: string;
  /** The configuration file that names it: `docs.json` or a file it pulls in with `$ref`. */
  source: string;
  line: number;
  /** The file the entry names, or null when there is none. */
  file: string | null;
}

/** A documentation site in the repository. */
export interface Site {
  kind: 'mintlify' | 'mkdocs' | 'plain';
  /** Its configuration file, or null for a repository without one. */
  config: string | null;
  /** Its configuration file and every file that one pulls in (Mintlify's `$ref`). */
  sources: string[];
  /** The folder its pages are in, '' for the repository root. */
  root: string;
  /**
   * Its navigation's entries; null when the site has none (a plain repository, MkDocs without
   * `nav`, which lists every page by itself) or when the configuration does not parse.
   */
  navigation: NavigationEntry[] | null;
  /** Paths other pages may link to that are not files: Mintlify's redirect sources. */
  redirects: Set<string>;
  /** What is wrong in the configuration's references (a `$ref` that leaves the repository, a cycle). */
  problems: CheckProblem[];
  /**
   * Whether the site's own ignore file (Mintlify's `.mintignore`) keeps a path, relative to the
   * site's root, out of the build; null when the site has none.
   */
  excluded: ((relativePath: string) => boolean) | null;
}

/** A site of `kind` configured by `config`, with its pages under `root` and nothing read yet. */
export const emptySite = (kind: Site['kind'], config: string | null, root: string): Site => ({
  kind,
  config,
  sources: config === null ? [] : [config],
  root,
  navigation: null,
  redirects: new Set(),
  problems: [],
  excluded: null,
});

/**
 * The file a site-relative path (`guides/setup`, `guides/`, `guides/setup.md`) lands on, the way
 * the site's server finds it: the file itself, with a page extension added, or the folder's index
 * page; null when none exists.
 */
export function resolvePage(files: ReadonlySet<string>, root: string, path: string): string | null {
  const base = join(root, path.replace(/\/+$/, ''));
  const candidates = [base, ...PAGE_EXTENSIONS.map((extension) => `${base}${extension}`)];
  for (const index of ['index', 'README']) {
    for (const extension of PAGE_EXTENSIONS) candidates.push(join(base, `${index}${extension}`));
  }
  // MkDocs writes `guide.md` as `guide/` (or `guide.html`); links to those forms are common.
  if (base.endsWith('.html')) candidates.push(...PAGE_EXTENSIONS.map((e) => `${base.slice(0, -5)}${e}`));
  return candidates.find((candidate) => candidate !== '' && files.has(candidate)) ?? null;
}

export function mkdocsSite(
  config: string,
  folder: string,
  files: ReadonlySet<string>,
  read: MkdocsConfig | null,
): Site {
  const docsDir = read?.docsDir;
  const root = join(folder, typeof docsDir === 'string' ? docsDir.replace(/^\.\/|\/+$/g, '') : 'docs');
  const site = emptySite('mkdocs', config, root);
  if (!read?.navigation) return site;
  site.navigation = read.navigation
    .filter((entry) => !isExternal(entry.page))
    .map(({ page, line }) => {
      const file = join(root, page.replace(/^\.?\//, ''));
      return { page, source: config, line, file: files.has(file) ? file : resolvePage(files, root, page) };
    });
  return site;
}

/** A URL with a scheme (`https:`, `mailto:`) or protocol-relative (`//host`): not checked. */
export function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');
}

export function isUnder(path: string, folder: string): boolean {
  return folder === '' || path.startsWith(`${folder}/`);
}

export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

export function dirname(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** Joins and normalises repository paths (`a/b/../c` → `a/c`); a path that climbs out of the root keeps its `..`. */
export function join(...parts: string[]): string {
  const out: string[] = [];
  for (const segment of parts.join('/').split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..' && out.length > 0 && out.at(-1) !== '..') out.pop();
    else out.push(segment);
  }
  return out.join('/');
}
