import { tool } from 'ai';
import { z } from 'zod';
import { resolveRepoPath } from '../../git/paths.js';
import { countLines, findEdit } from '../text.js';
import { filePath, readText, type ToolContext } from './context.js';

/** `edit_file`: replaces one piece of text that occurs exactly once in a file. */
export function editFileTool({ workspace, change, oneAtATime, guarded }: ToolContext) {
  return tool({
    description:
      "Replace one piece of text in a file. old_text must occur exactly once in the file, character for character (whitespace and line breaks included, without read_file's line numbers); add surrounding lines to make it unique.",
    inputSchema: z.strictObject({
      path: filePath,
      old_text: z.string().describe('The exact text to replace; must occur exactly once in the file.'),
      new_text: z.string().describe('The text to put in its place (empty to delete it).'),
    }),
    execute: ({ path, old_text, new_text }) =>
      oneAtATime(() =>
        guarded(async () => {
          const file = resolveRepoPath(path);
          const text = await readText(workspace, file);
          const edit = findEdit(file, text, old_text, new_text);
          const next =
            text.slice(0, edit.index) + edit.newText + text.slice(edit.index + edit.oldText.length);
          await change([file], () => workspace.writeFile(file, next));
          const line = text.slice(0, edit.index).split('\n').length;
          return `Edited ${file} at line ${line}: replaced ${countLines(edit.oldText)} line(s) with ${countLines(edit.newText)}.`;
        }),
      ),
  });
}
