/**
 * The agent's nine tools (docs/architecture.md#the-runs-phases), one file each. Their names and input shapes are a contract:
 * other systems drive them, so they are spelled exactly as the design says.
 *
 * A refused call (a path outside the repository, a binary or oversized file, text that does not
 * match, …) throws; the AI SDK turns a throw inside `execute` into a tool error that the model reads
 * in its next step, so a mistake never fails the job and the model can correct itself. Results are
 * short strings whose first line says what happened (the loop shows that line as the event summary).
 * Inputs are strict: a key a tool does not take (a `repository` given to a write tool, which only
 * ever changes the content repository) is refused as invalid input, never silently dropped.
 */
import type { Workspace } from '../../git/workspace.js';
import { type ContextRepository, createToolContext } from './context.js';
import { deleteFileTool } from './delete-file.js';
import { editFileTool } from './edit-file.js';
import { listFilesTool } from './list-files.js';
import { moveFileTool } from './move-file.js';
import { readFileTool } from './read-file.js';
import { type CheckRunner, runChecksTool } from './run-checks.js';
import { type CommandRunner, DEFAULT_MAX_COMMANDS, runCommandTool } from './run-command.js';
import { searchFilesTool } from './search-files.js';
import { type PlanItem, updatePlanTool } from './update-plan.js';
import { writeFileTool } from './write-file.js';

/** How the tools reach the loop that owns them. */
export interface ToolHooks {
  /** Called with the items of each valid `update_plan` call. */
  onPlan(items: PlanItem[]): void | Promise<void>;
  /**
   * Asked right before a file changes, with the repository paths the call would write, delete or
   * move. Returns a refusal the model will read (e.g. the files-changed limit), or null to go ahead.
   */
  checkChange(paths: string[]): string | null;
  /** Runs the project's checks for `run_checks`; without it, the tool says there are none. */
  runChecks?: CheckRunner;
  /**
   * The run's context repositories: `list_files`, `read_file` and `search_files` take their names as
   * `repository`; the write tools never reach them. Absent or empty: the read tools have no
   * `repository`.
   */
  repositories?: ContextRepository[];
  /** Runs a command for `run_command`; without it, the agent has no such tool. */
  runCommand?: CommandRunner;
  /** Calls of `run_command` per run (default `DEFAULT_MAX_COMMANDS`). */
  maxCommands?: number;
}

/** Builds the tool set for one run over `workspace`. */
export function createTools(workspace: Workspace, hooks: ToolHooks) {
  const context = createToolContext(workspace, (paths) => hooks.checkChange(paths), hooks.repositories ?? []);
  return {
    list_files: listFilesTool(context),
    read_file: readFileTool(context),
    search_files: searchFilesTool(context),
    write_file: writeFileTool(context),
    edit_file: editFileTool(context),
    delete_file: deleteFileTool(context),
    move_file: moveFileTool(context),
    update_plan: updatePlanTool(context, (items) => hooks.onPlan(items)),
    run_checks: runChecksTool(context, hooks.runChecks),
    ...(hooks.runCommand
      ? { run_command: runCommandTool(context, hooks.runCommand, hooks.maxCommands ?? DEFAULT_MAX_COMMANDS) }
      : {}),
  };
}

/** The tool set `createTools` builds. */
export type AgentTools = ReturnType<typeof createTools>;
