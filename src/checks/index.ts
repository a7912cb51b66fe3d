/**
 * A run of a job's checks (docs/architecture.md#the-runs-phases): the built-in checks on what the job changed (what
 * was already wrong in the base version of those files is a note, see baseline.ts), then the
 * project's own command in the sandbox, into one `CheckRun`. The worker runs it before
 * publishing; the agent's `run_checks` tool runs the same.
 */
import { type CheckResult, type CheckRun, runStatus } from '../domain/checks.js';
import type { Redactor } from '../domain/redact.js';
import type { Workspace } from '../git/workspace.js';
import { baseChanges, separateKnown } from './baseline.js';
import { type BuiltInInput, runBuiltInChecks } from './built-in.js';
import { runCommandCheck } from './command.js';
import type { SandboxSettings } from './sandbox.js';
import { baseTree, workspaceChanges, workspaceTree } from './workspace-tree.js';

export { closeParsePool } from '../parse/pool.js';
export { runAgentCommand } from './agent-command.js';
export { runBuiltInChecks } from './built-in.js';
export { type EnvironmentOutcome, prepareEnvironment, removeProjectEnvironments } from './environment.js';
export { checkSummary, describeForAgent } from './report.js';
export { type SandboxSettings, sandboxStatus } from './sandbox.js';
export { directoryTree, type SiteTree } from './tree.js';

/** A project's check settings, as the worker reads them from the project. */
export interface CheckSettings {
  builtIn: boolean;
  /**
   * The run merged its base with conflicts: the `conflicts` check runs even when the built-in
   * checks are off, since markers must never be published.
   */
  conflicts?: boolean;
  /** The project's own command, or null. */
  command: string | null;
  timeoutSeconds: number;
}

/** What a run of a job's checks needs. */
export interface JobCheckOptions {
  workspace: Workspace;
  baseRef: string;
  settings: CheckSettings;
  /** Where a checkout for the command is made and removed. */
  scratchDir: string;
  /** The limits of the command's sandbox. */
  sandbox: SandboxSettings;
  /** The project's environment, laid read-only into the command's checkout; null for none. */
  environment?: string | null;
  /** Time the built-in checks may spend parsing, per file and per run (defaults in src/parse/pool.ts). */
  parseBudget?: BuiltInInput['budget'];
  redact: Redactor;
  signal?: AbortSignal;
}

/** Whether a project has any check to run. */
export const hasChecks = (settings: CheckSettings) =>
  settings.builtIn || settings.conflicts === true || settings.command !== null;

export async function runJobChecks(options: JobCheckOptions): Promise<CheckRun> {
  const { workspace, settings } = options;
  const results: CheckResult[] = [];
  if (settings.builtIn || settings.conflicts) {
    const changes = await workspaceChanges(workspace, options.baseRef);
    const budget = {
      ...(options.parseBudget ? { budget: options.parseBudget } : {}),
      ...(settings.builtIn ? {} : { checks: ['conflicts' as const] }),
      ...(options.signal ? { signal: options.signal } : {}),
    };
    let builtIn = await runBuiltInChecks({ tree: workspaceTree(workspace), changes, ...budget });
    // The base is checked only when there is something to excuse: a passing run costs nothing more.
    const modified = baseChanges(changes);
    if (modified.length > 0 && builtIn.some((result) => result.status === 'failed')) {
      const tree = await baseTree(workspace, options.baseRef);
      builtIn = separateKnown(builtIn, await runBuiltInChecks({ tree, changes: modified, ...budget }));
    }
    results.push(...builtIn);
  }
  if (settings.command) {
    results.push(
      await runCommandCheck({
        command: settings.command,
        timeoutSeconds: settings.timeoutSeconds,
        sandbox: options.sandbox,
        materialize: (target) => workspace.materialize(target),
        scratchDir: options.scratchDir,
        environment: options.environment ?? null,
        redact: options.redact,
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    );
  }
  return { status: runStatus(results), ranAt: new Date().toISOString(), results };
}
