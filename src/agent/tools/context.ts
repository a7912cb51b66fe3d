/**
 * What every tool shares: the workspace, the run's context repositories, the hook that may refuse
 * a change, the queue that runs changes one at a time, and the way a failure becomes an error the
 * model can read.
 */
import { z } from 'zod';
import { isBinary, WorkspaceError } from '../../git/paths.js';
import type { ReadableRepository, Snapshot } from '../../git/snapshot.js';
import type { Workspace } from '../../git/workspace.js';
import { ToolError } from '../errors.js';

/** A context repository as the read tools see it: its name, and its tree at the commit fetched. */
export interface ContextRepository {
  name: string;
  ref: string;
  commit: string;
  snapshot: Snapshot;
}

/** What a tool is built with, for one run over one workspace. */
export interface ToolContext {
  workspace: Workspace;
  /** The run's context repositories, read-only; empty when it has none. */
  repositories: ContextRepository[];
  /**
   * The repository a read tool's `repository` names: the workspace when absent, else that context
   * repository. An unknown name is a `ToolError` that lists the names.
   */
  readable(repository: string | undefined): ReadableRepository;
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
  repositories: ContextRepository[] = [],
): ToolContext {
  // Models send several tool calls in one step and the SDK runs them at once. Changes run one at a
  // time: two edits of one file would otherwise both read the old text and the first would be lost,
  // and the files-changed check would count before either write landed.
  let changes: Promise<unknown> = Promise.resolve();
  // Server paths a failure's message may hold, blanked before the model reads it.
  const dirs = [workspace.dir, ...repositories.map((each) => each.snapshot.gitDir)];
  return {
    workspace,
    repositories,
    readable(repository) {
      if (repository === undefined) return workspace;
      const found = repositories.find((each) => each.name === repository);
      if (found) return found.snapshot;
      const names = repositories.map((each) => `"${each.name}"`).join(', ');
      // The model's own text, quoted and cut, so an odd or huge name cannot flood the answer.
      const asked = JSON.stringify(repository.slice(0, 100));
      throw new ToolError(
        repositories.length === 0
          ? `There is no repository ${asked}: this run has no context repositories. Leave out repository to use the content repository.`
          : `There is no repository ${asked}. The context repositories are ${names}; leave out repository to use the content repository.`,
      );
    },
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
    guarded: (run) => guarded(dirs, run),
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
async function guarded(dirs: string[], run: () => Promise<string>): Promise<string> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ToolError || error instanceof WorkspaceError) throw error;
    let message = error instanceof Error ? error.message : String(error);
    for (const dir of dirs) message = message.replaceAll(dir, '.');
    throw new ToolError(`The tool failed unexpectedly: ${message}`);
  }
}

/** The input schema of a read tool's `repository`, for a run with context repositories. */
export function repositoryField(repositories: ContextRepository[]) {
  const names = repositories.map((each) => `"${each.name}"`).join(', ');
  return z
    .string()
    .optional()
    .describe(
      `A context repository to read instead of the content repository: ${names}. Context repositories are read-only sources (e.g. the product's code); omit this to use the content repository, the one you change.`,
    );
}

/**
 * A read tool's input schema: `shape`, plus `repository` when the run has context repositories.
 * Without them the field is left out, so the tools' schemas (and what they cost in every request)
 * stay as they always were. Strict either way: a `repository` the tool does not take is a tool
 * error the model reads, never silently dropped so that it reads the wrong repository.
 */
export function readSchema<Shape extends z.ZodRawShape>(shape: Shape, repositories: ContextRepository[]) {
  const full = { ...shape, repository: repositoryField(repositories) };
  const schema = repositories.length > 0 ? z.strictObject(full) : z.strictObject(shape);
  return schema as unknown as z.ZodObject<typeof full, z.core.$strict>;
}

/** How a result names a path of a context repository, so the model cannot take it for the content's. */
export function inRepository(text: string, repository: string | undefined): string {
  return repository === undefined ? text : `${text} (repository ${repository})`;
}

/** A text file's content; refuses missing and binary files. */
export async function readText(repository: ReadableRepository, file: string): Promise<string> {
  const content = await repository.readFile(file);
  if (!content) throw WorkspaceError.notFound(file);
  if (isBinary(content)) throw binaryFile(file, content.length);
  return content.toString('utf8');
}

/** The current bytes of `file`, null when it does not exist; an oversized file counts as present text. */
export async function readIfPresent(workspace: Workspace, file: string): Promise<Buffer | null> {
  try {
    return await workspace.readFile(file);
  } catch (error) {
    if (error instanceof WorkspaceError && error.reason === 'too_large') return Buffer.alloc(1);
    throw error;
  }
}

/** The refusal of a binary file, which the tools neither read nor edit as text. */
export function binaryFile(file: string, size: number): ToolError {
  return new ToolError(
    `"${file}" is a binary file (${size} bytes); binary files cannot be read or edited as text. You can move or delete it.`,
  );
}
