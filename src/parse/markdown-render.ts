/**
 * Markdown to safe HTML. Runs in the parse pool's worker threads (worker.ts), never on
 * the event loop: micromark is super-linear on some inputs (a long run of `*`, bracket ladders).
 */
import rehypeSanitize from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { MAX_NESTING, treeDepth } from './nesting.js';

// Raw HTML in the Markdown is dropped by remark-rehype (it is not allowed through), and what the
// conversion makes is sanitized with GitHub's rules: no script, no event handlers, no
// `javascript:` links, ids prefixed so they cannot clobber the page's own.
const processor = unified()
  .use(remarkParse)
  .use(remarkRehype)
  .use(rehypeSanitize)
  .use(rehypeStringify)
  .freeze();

/** The HTML of `markdown`, or null when its tree is too deep for the steps after the parser, which recurse. */
export function renderMarkdown(markdown: string): string | null {
  const tree = processor.parse(markdown);
  if (treeDepth(tree) > MAX_NESTING) return null;
  return processor.stringify(processor.runSync(tree));
}
