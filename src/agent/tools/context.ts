/**
 * What every tool shares: the workspace, the hook that may refuse a change, the queue that runs
 * changes one at a time, and the way a failure becomes an error the model can read.
 */
import { z } from 'zod';
import { isBinary, WorkspaceError } from '../../git/paths.js';
import type { Workspace } from '../../git/workspace.js';
import { ToolError } from '../errors.js';

/** What a tool is built with, for one run over one workspace. */
export interface ToolContext {
  workspace: Workspace;
  /** Runs `run` once the change hook agreed to the paths; a refusal is thrown as a `ToolError`. */
  change(paths: string[], run: () => Promise<void>): Promise<void>;
  /** Runs `run` after every change started before it has ended. */
  oneAtATime(run: () => Promise<string>): Promise<string>;
  /** Runs a tool's body, turning what is not a refusal into a short tool error (see `guarded`). */
  guarded(run: () => Promise<string>): Promise<string>;
}

/**
 * The context for one run. `checkChange` is asked right before a file changes, with the paths the
 * call would write, delete or move; it returns a refusal the model will read, or null to go ahead.
 */
export function createToolContext(
  workspace: Workspace,
  checkChange: (paths: string[]) => string | null,
): ToolContext {
  // Models send several tool calls in one step and the SDK runs them at once. Changes run one at a
  // time: two edits of one file would otherwise both read the old text and the first would be lost,
  // and the files-changed check would count before either write landed.
  let changes: Promise<unknown> = Promise.resolve();
  return {
    workspace,
    async change(paths, run) {
      const refusal = checkChange(paths);
      if (refusal) throw new ToolError(refusal);
      await run();
    },
    oneAtATime(run) {
      const result = changes.then(run, run);
      changes = result.catch(() => {});
      return result;
    },
    guarded: (run) => guarded(workspace, run),
  };
}

/** The input schema of a repository path. */
export const filePath = z
  .string()
  .describe('Path relative to the repository root, e.g. "docs/guide/intro.md". No leading "/".');

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
export async function readText(workspace: Workspace, file: string): Promise<string> {
  const content = await workspace.readFile(file);
  if (!content) throw WorkspaceError.notFound(file);
  if (isBinary(content)) throw binaryFile(file, content.length);
  return content.toString('utf8');
}

/** The current bytes of `file`, null when it does not exist; an oversized file counts as present text. */
export async function readIfPresent(workspace: Workspace, file: string): Promise<Buffer | null> {
  try {
    return await workspace.readFile(file);
  } catch (error) {
    if (error instanceof WorkspaceError && error.code === 'too_large') return Buffer.alloc(1);
    throw error;
  }
}

/** The refusal of a binary file, which the tools neither read nor edit as text. */
export function binaryFile(file: string, size: number): ToolError {
  return new ToolError(
    `"${file}" is a binary file (${size} bytes); binary files cannot be read or edited as text. You can move or delete it.`,
  );
}
