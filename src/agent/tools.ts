/**
 * The agent's eight tools (DESIGN §5). Their names and input shapes are a contract: other systems
 * drive them, so they are spelled exactly as the design says.
 *
 * A refused call (a path outside the repository, a binary or oversized file, text that does not
 * match, …) throws; the AI SDK turns a throw inside `execute` into a tool error that the model reads
 * in its next step, so a mistake never fails the job and the model can correct itself. Results are
 * short strings whose first line says what happened (the loop shows that line as the event summary).
 */
import { tool } from 'ai';
import { z } from 'zod';
import { isBinary, resolveRepoPath, WorkspaceError } from '../git/paths.js';
import type { Workspace } from '../git/workspace.js';
import { ToolError } from './errors.js';
import { countLines, findEdit, numberedLines, plural } from './text.js';

export { ToolError } from './errors.js';

/** Lines `read_file` returns when no `limit` is given. */
export const DEFAULT_READ_LINES = 400;
/** Most lines one `read_file` call may ask for. */
export const MAX_READ_LINES = 2000;
/** Paths `list_files` shows before it asks the model to narrow the listing. */
const MAX_LISTED_FILES = 500;
/** Matches `search_files` shows. */
const MAX_SEARCH_MATCHES = 100;

export const PLAN_STATUSES = ['pending', 'in_progress', 'completed'] as const;
/** One line of the agent's plan, shown on the job. */
export interface PlanItem {
  content: string;
  status: (typeof PLAN_STATUSES)[number];
}

/** How the tools reach the loop that owns them. */
export interface ToolHooks {
  /** Called with the items of each valid `update_plan` call. */
  onPlan(items: PlanItem[]): void | Promise<void>;
  /**
   * Asked right before a file changes, with the repository paths the call would write, delete or
   * move. Returns a refusal the model will read (e.g. the files-changed limit), or null to go ahead.
   */
  checkChange(paths: string[]): string | null;
}

/**
 * A `checkChange` hook that refuses a change that would bring the number of distinct changed paths
 * over `max`. `exceeded` turns true at the first refusal, so the loop can end the run.
 */
export function filesChangedGuard(workspace: Workspace, max: number) {
  let exceeded = false;
  return {
    get exceeded(): boolean {
      return exceeded;
    },
    check(paths: string[]): string | null {
      const changed = new Set(workspace.changedPaths());
      const added = new Set(paths.filter((path) => !changed.has(path)));
      if (changed.size + added.size <= max) return null;
      exceeded = true;
      return `Refused: this job may change at most ${max} files and has already changed ${changed.size}. No file was changed by this call. Stop editing and write your summary for the user, saying what is left to do.`;
    },
  };
}

const filePath = z
  .string()
  .describe('Path relative to the repository root, e.g. "docs/guide/intro.md". No leading "/".');

/** Builds the tool set for one run over `workspace`. */
export function createTools(workspace: Workspace, hooks: ToolHooks) {
  /** Runs a change after the hook agreed to it. */
  async function change(paths: string[], run: () => Promise<void>): Promise<void> {
    const refusal = hooks.checkChange(paths);
    if (refusal) throw new ToolError(refusal);
    await run();
  }

  // Models send several tool calls in one step and the SDK runs them at once. Changes run one at a
  // time: two edits of one file would otherwise both read the old text and the first would be lost,
  // and the files-changed check would count before either write landed.
  let changes: Promise<unknown> = Promise.resolve();
  function oneAtATime(run: () => Promise<string>): Promise<string> {
    const result = changes.then(run, run);
    changes = result.catch(() => {});
    return result;
  }

  return {
    list_files: tool({
      description:
        'List the files of the repository (or of one folder), sorted, one path per line. Files ignored by git are not part of the repository. Use `pattern` to filter, e.g. "*.md" (file names) or "docs/**/*.mdx" (paths).',
      inputSchema: z.object({
        path: z
          .string()
          .optional()
          .describe('Folder to list, relative to the repository root; the whole repository when omitted.'),
        pattern: z
          .string()
          .optional()
          .describe('Glob filter: "*.md" matches file names, "guide/**/*.md" matches paths.'),
      }),
      execute: ({ path, pattern }) =>
        guarded(workspace, async () => {
          const files = await workspace.listFiles(path, pattern);
          const where = path && path !== '.' ? `under ${path}` : 'in the repository';
          const filter = pattern ? ` matching "${pattern}"` : '';
          if (files.length === 0) return `No files ${where}${filter}.`;
          const shown = files.slice(0, MAX_LISTED_FILES);
          const more =
            files.length > shown.length
              ? `\n[${files.length - shown.length} more not shown; narrow the listing with path or pattern.]`
              : '';
          return `${files.length} file${plural(files.length)} ${where}${filter}:\n${shown.join('\n')}${more}`;
        }),
    }),

    read_file: tool({
      description:
        'Read a text file. Lines come numbered ("  12\\tline text"); the numbers and the tab are not part of the file. Long files come in pages: use offset and limit to read further.',
      inputSchema: z.object({
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
      }),
      execute: ({ path, offset, limit }) =>
        guarded(workspace, async () => {
          const file = resolveRepoPath(path);
          const text = await readText(workspace, file);
          return numberedLines(file, text, offset ?? 1, limit ?? DEFAULT_READ_LINES);
        }),
    }),

    search_files: tool({
      description:
        'Search the text files of the repository for lines containing `query` (a plain string, or a regular expression when regex is true). Returns "path:line: text" per match.',
      inputSchema: z.object({
        query: z.string().min(1).describe('Text to find; case-sensitive.'),
        path: z
          .string()
          .optional()
          .describe('Folder or file to search in; the whole repository when omitted.'),
        regex: z.boolean().optional().describe('Treat query as a regular expression. Default false.'),
      }),
      execute: ({ query, path, regex }) =>
        guarded(workspace, async () => {
          const found = await workspace.search(query, { path, regex, limit: MAX_SEARCH_MATCHES });
          const where = path && path !== '.' ? ` under ${path}` : '';
          if (found.matches.length === 0) return `No lines match "${query}"${where}.`;
          const lines = found.matches.map((match) => `${match.path}:${match.line}: ${match.text}`);
          const count = `${found.matches.length}${found.truncated ? '+' : ''}`;
          const more = found.truncated
            ? '\n[More matches not shown; narrow the search with path or a longer query.]'
            : '';
          return `${count} matching line${plural(found.matches.length)} for "${query}"${where}:\n${lines.join('\n')}${more}`;
        }),
    }),

    write_file: tool({
      description:
        'Create a file, or replace all of its content. Folders are created as needed. For a small change to an existing file prefer edit_file; read a file before replacing it.',
      inputSchema: z.object({
        path: filePath,
        content: z.string().describe('The complete new content of the file.'),
      }),
      execute: ({ path, content }) =>
        oneAtATime(() =>
          guarded(workspace, async () => {
            const file = resolveRepoPath(path);
            const existing = await readIfPresent(workspace, file);
            if (existing && isBinary(existing)) throw binaryFile(file, existing.length);
            await change([file], () => workspace.writeFile(file, content));
            const size = `${countLines(content)} lines, ${Buffer.byteLength(content)} bytes`;
            return `${existing ? 'Replaced' : 'Created'} ${file} (${size}).`;
          }),
        ),
    }),

    edit_file: tool({
      description:
        "Replace one piece of text in a file. old_text must occur exactly once in the file, character for character (whitespace and line breaks included, without read_file's line numbers); add surrounding lines to make it unique.",
      inputSchema: z.object({
        path: filePath,
        old_text: z.string().describe('The exact text to replace; must occur exactly once in the file.'),
        new_text: z.string().describe('The text to put in its place (empty to delete it).'),
      }),
      execute: ({ path, old_text, new_text }) =>
        oneAtATime(() =>
          guarded(workspace, async () => {
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
    }),

    delete_file: tool({
      description: 'Delete a file (a symbolic link itself, not its target).',
      inputSchema: z.object({ path: filePath }),
      execute: ({ path }) =>
        oneAtATime(() =>
          guarded(workspace, async () => {
            const file = resolveRepoPath(path);
            await change([file], () => workspace.deleteFile(file));
            return `Deleted ${file}.`;
          }),
        ),
    }),

    move_file: tool({
      description:
        'Move or rename a file. The destination must not exist yet; folders are created as needed.',
      inputSchema: z.object({
        from: z.string().describe('Current path, relative to the repository root.'),
        to: z.string().describe('New path, relative to the repository root.'),
      }),
      execute: ({ from, to }) =>
        oneAtATime(() =>
          guarded(workspace, async () => {
            const source = resolveRepoPath(from);
            const target = resolveRepoPath(to);
            await change([source, target], () => workspace.moveFile(source, target));
            return `Moved ${source} to ${target}.`;
          }),
        ),
    }),

    update_plan: tool({
      description:
        'Record your plan for multi-step work; it is shown to the user on the job. Send the whole list each time, with each item pending, in_progress or completed.',
      inputSchema: z.object({
        items: z
          .array(
            z.object({
              content: z.string().min(1).describe('One step, in a short sentence.'),
              status: z.enum(PLAN_STATUSES).describe('pending, in_progress or completed.'),
            }),
          )
          .max(50)
          .describe('The full plan, in order.'),
      }),
      execute: ({ items }) =>
        guarded(workspace, async () => {
          await hooks.onPlan(items);
          const done = items.filter((item) => item.status === 'completed').length;
          return `Plan updated: ${done} of ${items.length} step${plural(items.length)} completed.`;
        }),
    }),
  };
}

/** The tool set `createTools` builds. */
export type AgentTools = ReturnType<typeof createTools>;

/**
 * Refusals pass through with their own message; anything else (git failing, the disk full) becomes
 * a short message without the server's paths, still as a tool error rather than a failed job.
 */
async function guarded(workspace: Workspace, run: () => Promise<string>): Promise<string> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ToolError || error instanceof WorkspaceError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new ToolError(`The tool failed unexpectedly: ${message.replaceAll(workspace.dir, '.')}`);
  }
}

/** A text file's content; refuses missing and binary files. */
async function readText(workspace: Workspace, file: string): Promise<string> {
  const content = await workspace.readFile(file);
  if (!content) throw WorkspaceError.notFound(file);
  if (isBinary(content)) throw binaryFile(file, content.length);
  return content.toString('utf8');
}

/** The current bytes of `file`, null when it does not exist; an oversized file counts as present text. */
async function readIfPresent(workspace: Workspace, file: string): Promise<Buffer | null> {
  try {
    return await workspace.readFile(file);
  } catch (error) {
    if (error instanceof WorkspaceError && error.code === 'too_large') return Buffer.alloc(1);
    throw error;
  }
}

function binaryFile(file: string, size: number): ToolError {
  return new ToolError(
    `"${file}" is a binary file (${size} bytes); binary files cannot be read or edited as text. You can move or delete it.`,
  );
}
