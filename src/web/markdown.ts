import rehypeSanitize from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { Html } from './html.js';

// Raw HTML in the Markdown is dropped by remark-rehype (it is not allowed through), and what the
// conversion makes is sanitized with GitHub's rules: no script, no event handlers, no
// `javascript:` links, ids prefixed so they cannot clobber the page's own.
const processor = unified()
  .use(remarkParse)
  .use(remarkRehype)
  .use(rehypeSanitize)
  .use(rehypeStringify)
  .freeze();

/**
 * Markdown written by the agent or a code host (a pull request's description) as HTML that is safe
 * to put in a page.
 */
export function markdownHtml(markdown: string): Html {
  return new Html(String(processor.processSync(markdown)));
}
