import { tool } from 'ai';
import { z } from 'zod';
import { plural } from '../text.js';
import { inRepository, readSchema, type ToolContext } from './context.js';

/** Paths `list_files` shows before it asks the model to narrow the listing. */
const MAX_LISTED_FILES = 500;

/** `list_files`: the repository's files, or a folder's, with a glob filter; `.gitignore` respected. */
export function listFilesTool({ readable, repositories, guarded }: ToolContext) {
  return tool({
    description:
      'List the files of the repository (or of one folder), sorted, one path per line. Files ignored by git are not part of the repository. Use `pattern` to filter, e.g. "*.md" (file names) or "docs/**/*.mdx" (paths).',
    inputSchema: readSchema(
      {
        path: z
          .string()
          .optional()
          .describe('Folder to list, relative to the repository root; the whole repository when omitted.'),
        pattern: z
          .string()
          .optional()
          .describe('Glob filter: "*.md" matches file names, "guide/**/*.md" matches paths.'),
      },
      repositories,
    ),
    execute: ({ path, pattern, repository }) =>
      guarded(async () => {
        const files = await readable(repository).listFiles(path, pattern);
        const where = inRepository(path && path !== '.' ? `under ${path}` : 'in the repository', repository);
        const filter = pattern ? ` matching "${pattern}"` : '';
        if (files.length === 0) return `No files ${where}${filter}.`;
        const shown = files.slice(0, MAX_LISTED_FILES);
        const more =
          files.length > shown.length
            ? `\n[${files.length - shown.length} more not shown; narrow the listing with path or pattern.]`
            : '';
        return `${files.length} file${plural(files.length)} ${where}${filter}:\n${shown.join('\n')}${more}`;
      }),
  });
}
