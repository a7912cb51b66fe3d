/**
 * Checks of a job's work (docs/checks.md): what a run of them found, as the job's
 * `checks` field, the `check` event and the pull request's summary show it.
 */

/**
 * The built-in checks, in the order they run and are reported. `conflicts` refuses the markers of
 * a merge conflict left in a changed file; it gates publishing whatever the project's policy.
 */
export const BUILT_IN_CHECKS = [
  'markdown',
  'frontmatter',
  'links',
  'navigation',
  'syntax',
  'conflicts',
] as const;
export type BuiltInCheck = (typeof BUILT_IN_CHECKS)[number];

/** The name of the project's own check command in results. */
export const COMMAND_CHECK = 'command';

/**
 * What happens when checks still fail after the agent's repair rounds: `draft` opens (or updates)
 * the pull request as a draft that lists the problems, `fail` ends the job with `checks_failed`
 * and publishes nothing, `publish` goes ahead and says so in the pull request.
 */
export const CHECK_FAILURE_POLICIES = ['draft', 'fail', 'publish'] as const;
export type CheckFailurePolicy = (typeof CHECK_FAILURE_POLICIES)[number];

/** Default time limit of a project's check command. */
export const DEFAULT_CHECK_TIMEOUT_SECONDS = 300;
/** Longest time limit a project may give its check command. */
export const MAX_CHECK_TIMEOUT_SECONDS = 3600;

/** One thing wrong, where it is, and what to do about it. `line` counts from 1; null for a whole file. */
export interface CheckProblem {
  path: string;
  line: number | null;
  message: string;
}

/**
 * One check's outcome. `error`: the check itself could not run to the end (a compiler fault, a
 * sandbox that would not start); it is reported but is not the agent's to fix.
 */
export interface CheckResult {
  name: string;
  status: 'passed' | 'failed' | 'error';
  /** One line for people; for a failure, what failed; for an error, why the check could not run. */
  message: string;
  problems: CheckProblem[];
  /**
   * Problems that were already in the base version of the files the job touched (same check, file
   * and message, lines aside): listed in the pull request as notes, never gating it, never sent to
   * the agent. Absent when there are none.
   */
  notes?: CheckProblem[];
}

/**
 * A run of the project's checks: the job's `checks` field and the `check` event's data. `failed`
 * when any check failed; `error` when none failed but one could not run; else `passed`.
 */
export interface CheckRun {
  status: 'passed' | 'failed' | 'error';
  ranAt: string;
  results: CheckResult[];
}

/** The status of a run made of `results`. */
export function runStatus(results: readonly CheckResult[]): CheckRun['status'] {
  if (results.some((result) => result.status === 'failed')) return 'failed';
  if (results.some((result) => result.status === 'error')) return 'error';
  return 'passed';
}

/** Every problem of a run, each with the name of the check that found it. */
export function problemsOf(run: CheckRun): (CheckProblem & { check: string })[] {
  return run.results.flatMap((result) =>
    result.problems.map((problem) => ({ ...problem, check: result.name })),
  );
}
