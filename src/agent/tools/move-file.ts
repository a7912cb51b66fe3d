import { tool } from 'ai';
import { z } from 'zod';
import { resolveRepoPath } from '../../git/paths.js';
import type { ToolContext } from './context.js';

/** `move_file`: moves or renames a file to a path that does not exist yet. */
export function moveFileTool({ workspace, change, oneAtATime, guarded }: ToolContext) {
  return tool({
    description: 'Move or rename a file. The destination must not exist yet; folders are created as needed.',
    inputSchema: z.strictObject({
      from: z.string().describe('Current path, relative to the repository root.'),
      to: z.string().describe('New path, relative to the repository root.'),
    }),
    execute: ({ from, to }) =>
      oneAtATime(() =>
        guarded(async () => {
          const source = resolveRepoPath(from);
          const target = resolveRepoPath(to);
          await change([source, target], () => workspace.moveFile(source, target));
          return `Moved ${source} to ${target}.`;
        }),
      ),
  });
}
