import { tool } from 'ai';
import { z } from 'zod';
import { resolveRepoPath } from '../../git/paths.js';
import { numberedLines } from '../text.js';
import { filePath, inRepository, readSchema, readText, type ToolContext } from './context.js';

/** Lines `read_file` returns when no `limit` is given. */
export const DEFAULT_READ_LINES = 400;
/** Most lines one `read_file` call may ask for. */
export const MAX_READ_LINES = 2000;

/** `read_file`: a text file's lines, numbered, a page at a time. */
export function readFileTool({ readable, repositories, guarded }: ToolContext) {
  return tool({
    description:
      'Read a text file. Lines come numbered ("  12\\tline text"); the numbers and the tab are not part of the file. Long files come in pages: use offset and limit to read further.',
    inputSchema: readSchema(
      {
        path: filePath,
        offset: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe('First line to show, counting from 1. Default 1.'),
        limit: z
          .number()
          .int()
          .min(1)
          .max(MAX_READ_LINES)
          .optional()
          .describe(`Number of lines to show. Default ${DEFAULT_READ_LINES}.`),
      },
      repositories,
    ),
    execute: ({ path, offset, limit, repository }) =>
      guarded(async () => {
        const file = resolveRepoPath(path);
        const text = await readText(readable(repository), file);
        return numberedLines(inRepository(file, repository), text, offset ?? 1, limit ?? DEFAULT_READ_LINES);
      }),
  });
}
