/**
 * What the demo model (`demo-model.ts`) writes: one new page titled from the prompt, labelled as
 * the demo's, and the one-line edit that links it (a README's list of links, Mintlify's first
 * `pages` array, MkDocs' `nav`), shaped so the built-in checks pass. Pure: it reads the tools'
 * answers as text and returns tool inputs; the tools do every read and write.
 */

import { redactSecrets } from '../domain/redact.js';

/** The note every page the demo model writes carries, in these words. */
export const DEMO_NOTE = 'Written by the agentjobs demo model — no AI model was used.';

/** The variables that give the service a real model, as the demo's texts name them. */
export const REAL_MODEL_HINT =
  'set ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_COMPATIBLE_BASE_URL on the server (and a model other than demo) for real work';

/** The kind of site, as far as the demo needs to know it. */
type SiteKind = 'mintlify' | 'mkdocs' | 'plain';

/** Where the page goes and what links it, decided from the repository's file list. */
export interface DemoSite {
  kind: SiteKind;
  /** The file that will link the page (a README, `docs.json`, `mkdocs.yml`), or null. */
  linkFrom: string | null;
  /** An existing page, read to see whether the site's pages have front matter; or null. */
  sample: string | null;
  /** The folder the page goes in ('' for the root); for MkDocs, known once its config is read. */
  folder: string;
  extension: '.md' | '.mdx';
}

const PAGE = /\.mdx?$/;
const dirname = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');
const inFolder = (folder: string, name: string) => (folder ? `${folder}/${name}` : name);
const depth = (path: string) => path.split('/').length;

/** The repository's paths from a `list_files` answer (its first line and notes left out). */
export function listedPaths(answer: string): string[] {
  return answer
    .split('\n')
    .slice(1)
    .filter((line) => line !== '' && !line.startsWith('['));
}

/** A file's text from a `read_file` answer: the numbered lines without their numbers. */
export function readText(answer: string): string {
  const lines: string[] = [];
  for (const line of answer.split('\n').slice(1)) {
    const match = /^\s*\d+\t(.*)$/.exec(line);
    // A line the tool cut short is not the file's line, so it can never be an edit's anchor.
    if (match && !line.includes('… [line cut,')) lines.push(match[1] as string);
  }
  return lines.join('\n');
}

/** The site in `files`: the shallowest Mintlify or MkDocs configuration, else a plain repository. */
export function findSite(files: string[]): DemoSite {
  const shallowest = (pattern: RegExp) =>
    files.filter((file) => pattern.test(file)).sort((a, b) => depth(a) - depth(b) || a.localeCompare(b))[0];
  const pagesIn = (folder: string) =>
    files.filter((file) => PAGE.test(file) && dirname(file) === folder && !isEntryPage(file));
  const mintlify = shallowest(/(^|\/)(docs|mint)\.json$/);
  if (mintlify) {
    const folder = dirname(mintlify);
    return {
      kind: 'mintlify',
      linkFrom: mintlify,
      sample: pagesIn(folder)[0] ?? null,
      folder,
      extension: '.mdx',
    };
  }
  const mkdocs = shallowest(/(^|\/)mkdocs\.ya?ml$/);
  if (mkdocs) {
    const folder = inFolder(dirname(mkdocs), 'docs');
    return { kind: 'mkdocs', linkFrom: mkdocs, sample: pagesIn(folder)[0] ?? null, folder, extension: '.md' };
  }
  const folder = files.some((file) => file.startsWith('docs/') && PAGE.test(file)) ? 'docs' : '';
  const readme = files.find((file) => /^(README|readme|index)\.mdx?$/.test(file)) ?? null;
  return { kind: 'plain', linkFrom: readme, sample: pagesIn(folder)[0] ?? null, folder, extension: '.md' };
}

const isEntryPage = (path: string) => /(^|\/)(README|readme|index)\.mdx?$/.test(path);

/** MkDocs keeps its pages in `docs_dir` (default `docs`), beside its configuration. */
export function mkdocsFolder(site: DemoSite, config: string): string {
  const docsDir = /^docs_dir:\s*['"]?([^'"\s#]+)/m.exec(config)?.[1]?.replace(/^\.\/|\/+$/g, '');
  return docsDir ? inFolder(dirname(site.linkFrom ?? ''), docsDir) : site.folder;
}

/** A short title from the prompt's words: "Add a FAQ page …" → "FAQ", else its first clause. */
export function titleFrom(prompt: string): string {
  const first = prompt.trim().split('\n')[0] ?? '';
  const named =
    /\b(?:a|an|the)\s+(?:new\s+)?["“']?([^"”'\n]{1,60}?)["”']?\s+(?:page|guide|article|doc)\b/i.exec(
      first,
    )?.[1];
  const clause = (named ?? first.split(/[.,;:!?]/)[0] ?? '').trim().split(/\s+/).slice(0, 8).join(' ');
  const title = clause.replace(/[`*_[\]<>{}#|\\]/g, '').trim();
  return title ? title.charAt(0).toUpperCase() + title.slice(1) : 'Demo page';
}

/** The page's file name without extension: the title in lower case, words joined by dashes. */
export function slugOf(title: string): string {
  const slug = title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50)
    .replace(/-+$/, '');
  // A README or index page is the folder's own page, not a new one.
  return !slug || /^(readme|index)$/.test(slug) ? `${slug || 'demo'}-page` : slug;
}

/** The first of `slug`, `slug-2`, `slug-3`, … whose file is not in `taken`. */
export function freePath(folder: string, slug: string, extension: string, taken: Set<string>): string {
  for (let number = 1; ; number++) {
    const path = inFolder(folder, `${number === 1 ? slug : `${slug}-${number}`}${extension}`);
    if (!taken.has(path)) return path;
  }
}

/** The page: front matter where the site uses it, the demo's note, and the request quoted as text. */
export function pageContent(options: {
  title: string;
  prompt: string;
  frontMatter: boolean;
  kind: SiteKind;
  /** How many files the repository listed. */
  filesListed: number;
}): string {
  const { title } = options;
  // The page is committed and pushed: a key pasted into the prompt must not land in the repository.
  const prompt = redactSecrets(options.prompt.trim());
  // A fence longer than any run of backticks in the prompt, so the prompt stays text (no links to check).
  const longest = Math.max(0, ...(prompt.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  const head = options.frontMatter
    ? `---\ntitle: ${JSON.stringify(title)}\ndescription: ${JSON.stringify(DEMO_NOTE)}\n---\n\n`
    : '';
  // Mintlify shows the front matter's title as the heading; elsewhere the page needs its own.
  const heading = options.kind === 'mintlify' ? '' : `# ${title}\n\n`;
  return `${head}${heading}> **Demo.** ${DEMO_NOTE} This page shows how an agentjobs job goes: the agent reads the repository, changes it, and opens a pull request. To have a real model write it, ${REAL_MODEL_HINT}.

The request was:

${fence}text
${prompt}
${fence}

The demo model looked at the ${options.filesListed} file${options.filesListed === 1 ? '' : 's'} of this repository to place this page; a real model would write its content from the request and the repository.
`;
}

/** Whether a page's text starts with front matter. */
export const hasFrontMatter = (text: string) => /^---\r?\n/.test(text);

/** An `edit_file` input. */
export interface Edit {
  path: string;
  old_text: string;
  new_text: string;
}

/**
 * The edit that links `page` from `site.linkFrom`, whose text is `text`; null when the file has no
 * place for it (a README without a list of links, a Mintlify config without a `pages` array).
 */
export function linkEdit(site: DemoSite, text: string, page: string, title: string): Edit | null {
  const path = site.linkFrom;
  if (!path) return null;
  if (site.kind === 'mintlify') {
    // The first `pages` array that starts with a page: the new page goes right after that one.
    const match = /"pages"\s*:\s*\[(\s*)"[^"\n]*"/.exec(text);
    if (!match) return null;
    const name = JSON.stringify(relative(dirname(path), page).replace(PAGE, ''));
    const space = match[1] as string;
    const after = space.includes('\n') ? `,${space}${name}` : `, ${name}`;
    return { path, old_text: match[0], new_text: `${match[0]}${after}` };
  }
  const lines = text.split('\n');
  if (site.kind === 'mkdocs') {
    const nav = lines.findIndex((line) => /^nav:\s*$/.test(line));
    if (nav < 0) return null;
    const first = /^(\s*)- /.exec(lines[nav + 1] ?? '');
    if (!first) return null;
    const indent = first[1] as string;
    // A one-line item at the top level of `nav`, so the new item sits beside it.
    const anchor = lines
      .slice(nav + 1)
      .find((line) => line.startsWith(`${indent}- `) && !line.trimEnd().endsWith(':'));
    if (!anchor) return null;
    const name = relative(site.folder, page);
    return { path, old_text: anchor, new_text: `${anchor}\n${indent}- ${JSON.stringify(title)}: ${name}` };
  }
  const list = lines.filter((line) => /^\s*[-*+]\s+\[[^\]]+\]\([^)\s]+\)\s*$/.test(line)).at(-1);
  if (!list) return null;
  const bullet = /^\s*[-*+]\s+/.exec(list)?.[0] ?? '- ';
  return { path, old_text: list, new_text: `${list}\n${bullet}[${title}](${relative(dirname(path), page)})` };
}

/** `page` as a link from a file in `folder`, both repository paths. */
function relative(folder: string, page: string): string {
  if (!folder) return page;
  const from = folder.split('/');
  const to = page.split('/');
  let common = 0;
  while (common < from.length && common < to.length - 1 && from[common] === to[common]) common++;
  return [...from.slice(common).map(() => '..'), ...to.slice(common)].join('/');
}
