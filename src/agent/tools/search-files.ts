import { tool } from 'ai';
import { z } from 'zod';
import { plural } from '../text.js';
import { inRepository, readSchema, type ToolContext } from './context.js';

/** Matches `search_files` shows. */
const MAX_SEARCH_MATCHES = 100;

/** `search_files`: matching lines of the repository's text files, with paths and line numbers. */
export function searchFilesTool({ readable, repositories, guarded }: ToolContext) {
  return tool({
    description:
      'Search the text files of the repository for lines containing `query` (a plain string, or a regular expression when regex is true). Returns "path:line: text" per match.',
    inputSchema: readSchema(
      {
        query: z.string().min(1).describe('Text to find; case-sensitive.'),
        path: z
          .string()
          .optional()
          .describe('Folder or file to search in; the whole repository when omitted.'),
        regex: z.boolean().optional().describe('Treat query as a regular expression. Default false.'),
      },
      repositories,
    ),
    execute: ({ query, path, regex, repository }) =>
      guarded(async () => {
        const found = await readable(repository).search(query, { path, regex, limit: MAX_SEARCH_MATCHES });
        const where = inRepository(path && path !== '.' ? ` under ${path}` : '', repository);
        if (found.matches.length === 0) return `No lines match "${query}"${where}.`;
        const lines = found.matches.map((match) => `${match.path}:${match.line}: ${match.text}`);
        const count = `${found.matches.length}${found.truncated ? '+' : ''}`;
        const more = found.truncated
          ? '\n[More matches not shown; narrow the search with path or a longer query.]'
          : '';
        return `${count} matching line${plural(found.matches.length)} for "${query}"${where}:\n${lines.join('\n')}${more}`;
      }),
  });
}
