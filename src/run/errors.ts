/**
 * How a run ends when it does not complete. Stops (shutdown, lost lease, archive) are not job
 * errors: nothing is recorded, or the job is handed back. Everything else fails the job with a code
 * a client can act on; unexpected errors become `internal_error` with a message that gives nothing
 * away (the log has the details).
 */

import { isJobFailureCode, JobFailure, ServiceError } from '../domain/errors.js';
import type { JobError } from '../domain/job.js';

export type StopReason = 'shutdown' | 'lost' | 'archived';

/** Why a run was stopped from outside; the abort reason of its signal. */
export class RunStopped extends Error {
  override name = 'RunStopped';
  readonly reason: StopReason;
  constructor(reason: StopReason) {
    super(
      reason === 'shutdown'
        ? 'The worker is shutting down.'
        : reason === 'archived'
          ? 'The job was archived.'
          : 'The worker lost its lease on the job.',
    );
    this.reason = reason;
  }
}

/** A repository refused what the worker needed of it; the message says what to change. */
export class RepositoryError extends JobFailure<'repository_error'> {
  override name = 'RepositoryError';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('repository_error', message, options);
  }
}

/**
 * The project's setup command failed: nothing else ran. The message ends with the lines of its
 * output that explain it (`explainingLines`).
 */
export class SetupFailedError extends JobFailure<'setup_failed'> {
  override name = 'SetupFailedError';
  constructor(why: string, output: string) {
    // The job's error keeps MESSAGE_LIMIT characters: the reason, then as much of the output as fits.
    const room = MESSAGE_LIMIT - why.length - 30;
    const shown = room > 0 ? explainingLines(output, room) : '';
    super('setup_failed', shown ? `${why} ${shown}` : why);
  }
}

/** A line that reports an error: npm's `ERR!` and `error` lines, and the words tools use. */
const ERROR_LINE = /^npm (ERR!|error) \S|\b(error|fatal|failed|cannot|could not|not found|denied)\b/i;
/** A line that only points into the sandbox's files (npm's log), gone when the sandbox is. */
const SANDBOX_POINTER = /complete log of this run can be found in|^npm (ERR!|error)\s+\/tmp\//i;

/**
 * What of a failed setup's output explains it, within `room` characters: the first error lines
 * (where npm and most tools say why), then the output's end; never a path inside the sandbox,
 * which no longer exists when anyone reads the message.
 */
export function explainingLines(output: string, room: number): string {
  const lines = output
    .replace(/^Its output( ends with)?:\n…?/, '')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => !SANDBOX_POINTER.test(line))
    .map((line) => line.replace(/\/tmp\/\S+/g, '(a file in the sandbox)'));
  while (lines.length > 0 && lines.at(-1) === '') lines.pop();
  if (lines.length === 0) return '';
  const first = lines.findIndex((line) => ERROR_LINE.test(line));
  // The first error and the lines after it, without the bare `npm error` lines between paragraphs.
  const cause =
    first < 0
      ? []
      : lines
          .slice(first)
          .filter((line) => !/^npm (ERR!|error)\s*$/.test(line))
          .slice(0, 8);
  const end = lines.slice(-8).filter((line) => !cause.includes(line));
  const fits = (text: string) => (text.length > room ? `${text.slice(0, room - 1)}…` : text);
  if (cause.length === 0) return fits(`Its output ends with:\n${lines.slice(-12).join('\n')}`);
  const causeText = `Its first error:\n${cause.join('\n')}`;
  if (end.length === 0 || causeText.length + 40 > room) return fits(causeText);
  const endText = end.join('\n');
  const left = room - causeText.length - 30;
  return `${causeText}\n\nIts output ends with:\n${endText.length > left ? `…${endText.slice(-left)}` : endText}`;
}

/**
 * Push mode: a commit the service pushed changed what the setup command reads, and no person has
 * accepted it yet, so the setup does not run with network (`setup_needs_review`).
 */
export class SetupNeedsReviewError extends JobFailure<'setup_needs_review'> {
  override name = 'SetupNeedsReviewError';
  constructor(projectId: string, files: readonly string[]) {
    const named =
      files.slice(0, 20).join(', ') + (files.length > 20 ? `, and ${files.length - 20} more` : '');
    super(
      'setup_needs_review',
      `The setup command did not run: a commit the service pushed to the base branch changed what it reads (${named}), and code no person has reviewed never runs with network. Review those changes, then accept them: agentjobs project setup accept ${projectId} (or the button on the project's settings page), then send the job a follow-up.`,
    );
  }
}

const MESSAGE_LIMIT = 1000;

/**
 * The job error for a failure, and whether it was expected (else it is logged as an error). Every
 * failure the service plans for is a `JobFailure` carrying its code (the model's, git's, a code
 * host's, the checks', the setup's); anything else is a fault, `internal_error`, whose message
 * gives nothing away (the log has the details).
 */
export function jobErrorOf(error: unknown): JobError & { expected: boolean } {
  if (ServiceError.isInstance(error) && isJobFailureCode(error.code))
    return { code: error.code, message: short(error.message), expected: error.expected };
  return {
    code: 'internal_error',
    message: 'The job stopped on an internal error of the service.',
    expected: false,
  };
}

function short(message: string): string {
  return message.length > MESSAGE_LIMIT ? `${message.slice(0, MESSAGE_LIMIT - 1)}…` : message;
}
