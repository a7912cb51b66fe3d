import { markdownNesting } from '../parse/nesting.js';
import { ParseRun, parseOffThread } from '../parse/pool.js';
import { Html, html } from './html.js';

/** Past these, text is shown as it is without asking a worker: no description needs more. */
const MAX_RENDERED_CHARS = 100_000;
const MAX_RENDERED_NESTING = 64;
/** How long a render may take in a worker, and wait for one: the page answers either way. */
const RENDER_MS = 2_000;
const RENDER_WAIT_MS = 5_000;

/**
 * Markdown written by the agent or a code host (a pull request's description) as HTML that is safe
 * to put in a page, rendered in the parse pool (parse/markdown-render.ts). Text too long, too deeply
 * nested or too slow to render is shown escaped, as it is.
 */
export async function markdownHtml(markdown: string): Promise<Html> {
  if (markdown.length > MAX_RENDERED_CHARS || markdownNesting(markdown) > MAX_RENDERED_NESTING)
    return plainText(markdown);
  try {
    const rendered = await parseOffThread(
      { kind: 'markdown', path: 'the description', text: markdown },
      { fileMs: RENDER_MS, run: new ParseRun(RENDER_MS, AbortSignal.timeout(RENDER_WAIT_MS)) },
    );
    return rendered.ok && rendered.value !== null ? new Html(rendered.value) : plainText(markdown);
  } catch {
    return plainText(markdown);
  }
}

const plainText = (text: string) => html`<pre class="plain">${text}</pre>`;
