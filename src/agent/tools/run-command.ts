import { tool } from 'ai';
import { z } from 'zod';
import { ToolError } from '../errors.js';
import type { ToolContext } from './context.js';

/**
 * Runs a command line offline in the sandbox on a checkout of the work so far and returns what the
 * model reads: the exit code, then the end of the output. Given by whoever runs the agent (the
 * worker), only where the project allows commands, so the agent knows nothing of the sandbox.
 */
export type CommandRunner = (command: string) => Promise<string>;

/** Calls of `run_command` a run may make when nobody says otherwise (`AGENTJOBS_MAX_COMMANDS`). */
export const DEFAULT_MAX_COMMANDS = 20;

/** Longest command line the tool takes. */
const MAX_COMMAND_CHARS = 2000;

/**
 * `run_command`: the project's own tools (a build, the framework's checker) on the work so far, so
 * the agent can read what fails as a person would. At most `maxCommands` calls per run; past that,
 * a tool error says so and the model carries on without.
 */
export function runCommandTool(
  { oneAtATime, guarded }: ToolContext,
  runCommand: CommandRunner,
  maxCommands: number,
) {
  let calls = 0;
  return tool({
    description:
      "Run a shell command in the repository's root on your work so far, e.g. `npx mint broken-links`, `mkdocs build --strict` or `npm run build`, and read its exit code and the last 16 KiB of its output. It runs in a sandbox with no network, with the tools the project's setup installed (node_modules, …), within time and memory limits; what it writes is thrown away after. Use it to find what the project's own checker reports, then fix the files with your tools.",
    inputSchema: z.object({
      command: z
        .string()
        .min(1)
        .max(MAX_COMMAND_CHARS)
        .describe('A shell command line, run with /bin/sh -c.'),
    }),
    // After every change already started, so the command sees them all.
    execute: ({ command }) =>
      oneAtATime(() =>
        guarded(async () => {
          if (calls >= maxCommands)
            throw new ToolError(
              `run_command refused: this run may run at most ${maxCommands} commands and has run them all. Go on with your other tools; your work is checked again before it is published.`,
            );
          calls += 1;
          return runCommand(command);
        }),
      ),
  });
}
