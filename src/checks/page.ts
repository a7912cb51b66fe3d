/**
 * A page as the checks read it: Markdown parsed by remark (CommonMark), MDX parsed and compiled by
 * the MDX compiler (`@mdx-js/mdx`), so what fails here fails the site's build the same way. From
 * the syntax tree come the page's front matter, its links (Markdown links and images, reference
 * definitions, `href`/`src` of components, ESM imports) and the anchors its headings (and HTML
 * `id`s) make. Code
 * blocks and inline code are nodes of their own, so a `<Tag>` or a link inside them is never seen.
 */
import GithubSlugger from 'github-slugger';
import type { Heading, Root, RootContent } from 'mdast';
import { toString as textOf } from 'mdast-util-to-string';
import remarkFrontmatter from 'remark-frontmatter';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';
import { isMap, isScalar, LineCounter, parseDocument } from 'yaml';
import type { CheckProblem } from '../domain/checks.js';
import { MAX_NESTING, markdownNesting, treeDepth, yamlNesting } from '../parse/nesting.js';

/** An `id` or `name` attribute of an HTML tag, quoted either way. */
const HTML_ANCHOR = /<[a-z][^<>]*?\s(?:id|name)\s*=\s*(["'])([^"'<>]+)\1/gi;

/** A link, image or import found in a page. */
export interface PageLink {
  url: string;
  line: number;
  kind: 'link' | 'image' | 'import';
}

/** What the checks need of one page. */
export interface ParsedPage {
  path: string;
  /** Syntax errors, each with its line and what to do. */
  problems: CheckProblem[];
  /** The compiler failed on something other than the page's syntax (a fault to report, not to fix). */
  fault: string | null;
  /** The YAML front matter as read, or null when there is none. */
  frontmatter: FrontMatter | null;
  links: PageLink[];
  /** Anchors a link may point at: heading slugs, explicit ids. Null when the page did not parse. */
  anchors: Set<string> | null;
}

const markdown = unified().use(remarkParse).use(remarkFrontmatter, ['yaml']);
/**
 * MDX that does not parse, read as Markdown the way MDX reads it: without HTML and indented code
 * (micromark's switches for that), so text inside an unclosed `<Note>` is still paragraphs and links.
 */
const lenientMdx = unified()
  .use(function withoutHtml(this: { data(): { micromarkExtensions?: unknown[] } }) {
    const data = this.data();
    data.micromarkExtensions ??= [];
    data.micromarkExtensions.push({ disable: { null: ['htmlFlow', 'htmlText', 'codeIndented'] } });
  })
  .use(remarkParse)
  .use(remarkFrontmatter, ['yaml']);
type MdxProcessor = ReturnType<typeof import('@mdx-js/mdx').createProcessor>;
let mdxProcessor: Promise<MdxProcessor> | undefined;
/** The MDX compiler loads with the first MDX page, not at every start of the server. */
function loadMdx(): Promise<MdxProcessor> {
  mdxProcessor ??= import('@mdx-js/mdx').then(({ createProcessor }) =>
    createProcessor({ format: 'mdx', remarkPlugins: [[remarkFrontmatter, ['yaml']]] }),
  );
  return mdxProcessor;
}

/**
 * Parses (and, for MDX, compiles unless `compile: false`, which is enough to read a link target's
 * anchors) a page. Never throws: failures are problems or a fault.
 */
export async function parsePage(
  path: string,
  text: string,
  options: { compile?: boolean } = {},
): Promise<ParsedPage> {
  const page: ParsedPage = { path, problems: [], fault: null, frontmatter: null, links: [], anchors: null };
  const depth = markdownNesting(text);
  if (depth > MAX_NESTING) return tooDeep(page, depth);
  const isMdx = path.endsWith('.mdx');
  const mdx = isMdx ? await loadMdx() : null;
  let tree: Root;
  try {
    tree = (mdx ? mdx.parse(text) : markdown.parse(text)) as Root;
  } catch (error) {
    recordFailure(page, error, 'parse');
    if (!isMdx) return page;
    // MDX that does not parse is still read as Markdown for its front matter, links and headings,
    // so that every problem of the page is reported at once, not one after the other.
    try {
      const lenient = lenientMdx.parse(text) as Root;
      if (treeDepth(lenient) <= MAX_NESTING) collect(page, lenient, false);
    } catch {}
    return page;
  }
  const treeDeep = treeDepth(tree);
  if (treeDeep > MAX_NESTING) return tooDeep(page, treeDeep);
  try {
    collect(page, tree, isMdx);
  } catch (error) {
    // A page nested deeper than the stack allows, say: the checks cannot read it, the site may.
    recordFailure(page, error, 'parse');
    return page;
  }
  if (mdx && options.compile !== false) {
    try {
      // Compiling (to JavaScript, not run) finds what the parser lets through, e.g. duplicate exports.
      await mdx.run(tree as never);
    } catch (error) {
      recordFailure(page, error, 'compile');
    }
  }
  return page;
}

function tooDeep(page: ParsedPage, depth: number | null): ParsedPage {
  const levels = depth === null ? '' : ` (${depth} levels; at most ${MAX_NESTING})`;
  page.problems.push({
    path: page.path,
    line: null,
    message: `${page.path} is nested too deeply to check${levels}: simplify the nesting (block quotes, lists, emphasis).`,
  });
  return page;
}

/** A compiler message about the page becomes a problem; anything else is a fault of the compiler. */
function recordFailure(page: ParsedPage, error: unknown, stage: 'parse' | 'compile'): void {
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    tooDeep(page, null);
    return;
  }
  if (!isCompilerMessage(error)) {
    const reason = error instanceof Error ? error.message : String(error);
    const tool = page.path.endsWith('.mdx') ? 'The MDX compiler' : 'The Markdown parser';
    page.fault = `${tool} failed on ${page.path} (${stage}): ${reason.split('\n')[0]}`;
    return;
  }
  page.problems.push(syntaxProblem(page.path, error));
}

interface CompilerMessage {
  reason: string;
  line?: number;
  ruleId?: string;
  source?: string;
}

/** The compiler's own messages (vfile-message) carry the rule and the parser that raised them. */
function isCompilerMessage(error: unknown): error is CompilerMessage {
  return (
    error instanceof Error &&
    typeof (error as { reason?: unknown }).reason === 'string' &&
    typeof (error as { source?: unknown }).source === 'string'
  );
}

function syntaxProblem(path: string, error: CompilerMessage): CheckProblem {
  const reason = error.reason;
  // An unclosed tag is reported at the end of its parent with the opening tag's place in the text.
  const unclosed = /^Expected a closing tag for `<([^>`]*)>` \((\d+):\d+/.exec(reason);
  if (unclosed) {
    const [, name, line] = unclosed;
    return {
      path,
      line: Number(line),
      message: `\`<${name}>\` opened on line ${line} is never closed: add \`</${name}>\` where its content ends, or write \`<${name} />\` if it has none.`,
    };
  }
  let advice = 'Fix the MDX syntax here.';
  if (error.source?.includes('expression'))
    advice =
      'In MDX, `{` starts a JavaScript expression: close it, or write `\\{` for a literal brace (in code, use backticks).';
  else if (error.source?.includes('esm'))
    advice = 'Fix the import/export statement: it must be valid JavaScript.';
  else if (error.ruleId === 'end-tag-mismatch')
    advice = 'Close components in the order they were opened, with the same name.';
  else if (error.source?.includes('jsx'))
    advice =
      'In MDX, `<` starts a component or HTML tag: close it, write `&lt;` for a literal `<`, and use `{/* … */}` for comments.';
  return { path, line: error.line ?? null, message: `MDX does not compile: ${reason}. ${advice}` };
}

function collect(page: ParsedPage, tree: Root, isMdx: boolean): void {
  const first = tree.children[0];
  if (first?.type === 'yaml')
    page.frontmatter = readFrontmatter(first.value, (first.position?.start.line ?? 1) + 1);
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  const add = (
    url: string | null | undefined,
    node: { position?: { start: { line: number } } },
    kind: PageLink['kind'],
  ) => {
    if (typeof url === 'string' && url.trim() !== '')
      page.links.push({ url: url.trim(), line: node.position?.start.line ?? 1, kind });
  };
  visit(tree, (node: RootContent | Root) => {
    switch (node.type) {
      case 'link':
      case 'definition':
        add(node.url, node, 'link');
        break;
      case 'image':
        add(node.url, node, 'image');
        break;
      case 'heading':
        addHeading(anchors, slugger, node, isMdx);
        break;
      case 'html':
        // Raw HTML in Markdown: `<a id="old-heading"></a>` keeps an anchor alive after a heading is
        // renamed (the Rust book does it). Only tags' `id` and `name` matter; no HTML parser needed.
        for (const match of node.value.matchAll(HTML_ANCHOR))
          anchors.add(normalizeAnchor(match[2] as string));
        break;
      case 'mdxJsxFlowElement':
      case 'mdxJsxTextElement':
        for (const attribute of node.attributes) {
          if (attribute.type !== 'mdxJsxAttribute' || typeof attribute.value !== 'string') continue;
          if (attribute.name === 'href') add(attribute.value, node, 'link');
          else if (attribute.name === 'src') add(attribute.value, node, 'image');
          else if (attribute.name === 'id') anchors.add(normalizeAnchor(attribute.value));
        }
        break;
      case 'mdxjsEsm':
        for (const statement of node.data?.estree?.body ?? []) {
          if (statement.type === 'ImportDeclaration' && typeof statement.source.value === 'string')
            add(statement.source.value, node, 'import');
        }
        break;
    }
  });
  page.anchors = anchors;
}

/**
 * A page's front matter as the YAML parser read it (in the parse worker, see src/parse/pool.ts): what
 * the check needs, and nothing that cannot cross to the main thread.
 */
export interface FrontMatter {
  /** The line of the front matter's first line. */
  line: number;
  /** Why it is not valid YAML (the message for the agent) and the line; null when it is. */
  error: { line: number; message: string } | null;
  /** Whether it holds a mapping (or nothing). */
  mapping: boolean;
  /** Its top-level fields that have a non-empty value. */
  filled: string[];
  /**
   * `hidden: true` or `noindex: true`: a Mintlify page kept out of the navigation on purpose (a
   * page its author keeps out of search is one readers reach only by a link, like a hidden page).
   */
  hidden: boolean;
}

/** Reads front matter text that starts on `line`; never throws for what it holds. */
export function readFrontmatter(text: string, line: number): FrontMatter {
  const front: FrontMatter = { line, error: null, mapping: true, filled: [], hidden: false };
  const depth = yamlNesting(text);
  if (depth > MAX_NESTING) {
    front.error = {
      line,
      message: `The front matter is nested too deeply (${depth} levels; at most ${MAX_NESTING}): simplify the nesting.`,
    };
    return front;
  }
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const [error] = document.errors;
  if (error) {
    front.error = {
      line: line + lines.linePos(error.pos[0]).line - 1,
      message: `The front matter is not valid YAML: ${error.message.split('\n')[0]}. Quote values that hold \`:\`, \`#\`, \`{\` or start with a special character.`,
    };
    return front;
  }
  const contents = document.contents;
  if (contents === null) return front;
  if (!isMap(contents)) {
    front.mapping = false;
    return front;
  }
  for (const pair of contents.items) {
    const key = isScalar(pair.key) ? pair.key.value : pair.key;
    const value = contents.get(key);
    if (value !== undefined && value !== null && String(value).trim() !== '') front.filled.push(String(key));
  }
  front.hidden = ['hidden', 'noindex'].some((field) => {
    const value: unknown = contents.get(field, true);
    return isScalar(value) && value.value === true;
  });
  return front;
}

/** A heading's anchor: its slug (and an explicit `{#id}` in Markdown, as MkDocs' attr_list writes it). */
function addHeading(anchors: Set<string>, slugger: GithubSlugger, heading: Heading, isMdx: boolean): void {
  let text = textOf(heading);
  const explicit = isMdx ? null : /\s*\{#([^}\s]+)\}\s*$/.exec(text);
  if (explicit) {
    anchors.add(normalizeAnchor(explicit[1] as string));
    text = text.slice(0, explicit.index);
  }
  anchors.add(normalizeAnchor(slugger.slug(text)));
}

/**
 * Anchors compared loosely: site generators slug `A & B` as `a--b` or `a-b`, so runs of dashes
 * count as one, and case and URL escapes do not count.
 */
export function normalizeAnchor(anchor: string): string {
  let decoded = anchor;
  try {
    decoded = decodeURIComponent(anchor);
  } catch {}
  return decoded.toLowerCase().replace(/-+/g, '-').replace(/^-|-$/g, '');
}
