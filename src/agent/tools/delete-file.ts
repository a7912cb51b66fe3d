import { tool } from 'ai';
import { z } from 'zod';
import { resolveRepoPath } from '../../git/paths.js';
import { filePath, type ToolContext } from './context.js';

/** `delete_file`: deletes a file (a symbolic link itself, not its target). */
export function deleteFileTool({ workspace, change, oneAtATime, guarded }: ToolContext) {
  return tool({
    description: 'Delete a file (a symbolic link itself, not its target).',
    inputSchema: z.strictObject({ path: filePath }),
    execute: ({ path }) =>
      oneAtATime(() =>
        guarded(async () => {
          const file = resolveRepoPath(path);
          await change([file], () => workspace.deleteFile(file));
          return `Deleted ${file}.`;
        }),
      ),
  });
}
