/**
 * The `frontmatter` check: a page's front matter is valid YAML holding a mapping, and carries the
 * fields its site requires (a Mintlify page needs `title`; MkDocs and plain Markdown need none).
 */
import type { CheckProblem } from '../domain/checks.js';
import type { FrontMatter } from './page.js';
import { isPublished } from './published.js';
import type { Site } from './site.js';

/** Fields a site's pages must have in their front matter. */
const REQUIRED_FIELDS: Record<Site['kind'], string[]> = { mintlify: ['title'], mkdocs: [], plain: [] };

export function checkFrontmatter(
  page: { path: string; frontmatter: FrontMatter | null },
  site: Site,
): CheckProblem[] {
  // Only a page the framework publishes needs its fields (not a snippet, a README, `.mintlify/`).
  const required = isPublished(page.path, site) ? REQUIRED_FIELDS[site.kind] : [];
  const front = page.frontmatter;
  if (!front) {
    if (required.length === 0) return [];
    return [
      {
        path: page.path,
        line: 1,
        message: `The page has no front matter; this site needs ${fields(required)}. Start the file with a block like:\n---\ntitle: "…"\n---`,
      },
    ];
  }
  if (front.error) return [{ path: page.path, line: front.error.line, message: front.error.message }];
  if (!front.mapping) {
    return [
      {
        path: page.path,
        line: front.line,
        message: 'The front matter must be a list of `key: value` fields.',
      },
    ];
  }
  const missing = required.filter((field) => !front.filled.includes(field));
  if (missing.length === 0) return [];
  return [
    {
      path: page.path,
      line: front.line - 1,
      message: `The front matter lacks ${fields(missing)}, which this site needs on every page. Add it.`,
    },
  ];
}

const fields = (names: string[]) => names.map((name) => `\`${name}\``).join(' and ');
