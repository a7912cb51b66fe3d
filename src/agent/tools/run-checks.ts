import { tool } from 'ai';
import { z } from 'zod';
import type { ToolContext } from './context.js';

/**
 * Runs the project's checks on the work so far and returns what they found, one problem per line.
 * Given by whoever runs the agent (the worker), so the agent knows nothing of how checks run.
 */
export type CheckRunner = () => Promise<string>;

/** `run_checks`: the project's checks on the work so far, so the agent can fix problems before it finishes. */
export function runChecksTool({ oneAtATime, guarded }: ToolContext, runChecks: CheckRunner | undefined) {
  return tool({
    description:
      "Run the project's checks (MDX/Markdown syntax, front matter, links, navigation, JSON/YAML, and the project's own check command if it has one) on your work so far. Returns every problem with its file and line. Your work is checked again before it is published.",
    inputSchema: z.object({}),
    // After every change already started, so the checks see them all.
    execute: () =>
      oneAtATime(() => guarded(async () => (runChecks ? runChecks() : 'This project has no checks to run.'))),
  });
}
