/**
 * Which files a site's framework publishes as pages, as each one documents it; the checks hold only
 * those to a page's rules (front matter fields, a place in the navigation).
 * - Mintlify ignores a fixed list of folders and repository files (its "Exclude files" page) and
 *   what the site's `.mintignore` matches,
 *   renders `snippets/` only inside other pages, and serves nothing from a dot-folder (`.mintlify/`
 *   holds instructions for its own agent); agent skill files (a root `skill.md`, any `SKILL.md`)
 *   are served to agents as they are, not as pages.
 * - MkDocs builds the files under `docs_dir` except, by its default `exclude_docs`, dot-files and
 *   dot-folders and `templates/` at the top of `docs_dir`.
 * - Without a framework, every Markdown file is a page (GitHub renders each).
 */
import { isPage, isUnder, type Site } from './site.js';

/** Folders Mintlify never publishes, besides any whose name starts with a dot. */
const MINTLIFY_IGNORED_FOLDERS = new Set(['node_modules', 'build', 'dist', 'coverage', 'tmp', 'temp']);

/** Files about the repository (and instructions for agents), not pages, in any framework's site. */
const REPOSITORY_DOCS = new Set([
  'README.md',
  'AGENTS.md',
  'CLAUDE.md',
  'CHANGELOG.md',
  'CONTRIBUTING.md',
  'LICENSE.md',
]);

/** Mintlify's folder of files included into pages. */
const MINTLIFY_SNIPPETS = 'snippets';

/** Whether `path` is a page `site` publishes. */
export function isPublished(path: string, site: Site): boolean {
  if (!isPage(path) || !isUnder(path, site.root)) return false;
  const relative = site.root ? path.slice(site.root.length + 1) : path;
  if (site.excluded?.(relative)) return false;
  const segments = relative.split('/');
  const name = segments.at(-1) as string;
  const folders = segments.slice(0, -1);
  switch (site.kind) {
    case 'mintlify':
      return (
        !REPOSITORY_DOCS.has(name) &&
        name !== 'SKILL.md' &&
        !(name === 'skill.md' && folders.length === 0) &&
        folders[0] !== MINTLIFY_SNIPPETS &&
        !folders.some((folder) => folder.startsWith('.') || MINTLIFY_IGNORED_FOLDERS.has(folder))
      );
    case 'mkdocs':
      return !segments.some((segment) => segment.startsWith('.')) && folders[0] !== 'templates';
    case 'plain':
      return true;
  }
}

/** Whether `path` is about the repository rather than a page of its site (README, CHANGELOG, …). */
export const isRepositoryDoc = (path: string) => REPOSITORY_DOCS.has(path.slice(path.lastIndexOf('/') + 1));
