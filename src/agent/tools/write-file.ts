import { tool } from 'ai';
import { z } from 'zod';
import { isBinary, resolveRepoPath } from '../../git/paths.js';
import { countLines } from '../text.js';
import { binaryFile, filePath, readIfPresent, type ToolContext } from './context.js';

/** `write_file`: creates a file or replaces all of its content. */
export function writeFileTool({ workspace, change, oneAtATime, guarded }: ToolContext) {
  return tool({
    description:
      'Create a file, or replace all of its content. Folders are created as needed. For a small change to an existing file prefer edit_file; read a file before replacing it.',
    inputSchema: z.strictObject({
      path: filePath,
      content: z.string().describe('The complete new content of the file.'),
    }),
    execute: ({ path, content }) =>
      oneAtATime(() =>
        guarded(async () => {
          const file = resolveRepoPath(path);
          const existing = await readIfPresent(workspace, file);
          if (existing && isBinary(existing)) throw binaryFile(file, existing.length);
          await change([file], () => workspace.writeFile(file, content));
          const size = `${countLines(content)} lines, ${Buffer.byteLength(content)} bytes`;
          return `${existing ? 'Replaced' : 'Created'} ${file} (${size}).`;
        }),
      ),
  });
}
