/** A check run in words: the message the agent reads, and the summary at the end of a pull request. */
import { type CheckProblem, type CheckRun, problemsOf } from '../domain/checks.js';

/** Problems listed in a pull request's description; the job's `checks` field has them all. */
const MAX_LISTED = 30;

/** Every problem of a failed run, one per line (`path:line (check) message`), for the agent. */
export function describeForAgent(run: CheckRun): string {
  const problems = problemsOf(run);
  if (run.status === 'passed' || problems.length === 0) {
    const errors = run.results.filter((result) => result.status === 'error');
    const note = errors.map((result) => `\n- ${result.name} could not run: ${result.message}`).join('');
    return `All checks passed.${note}`;
  }
  const lines = problems.map(
    (problem) =>
      `- ${problem.path}${problem.line ? `:${problem.line}` : ''} (${problem.check}) ${problem.message}`,
  );
  return `The checks found ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${lines.join('\n')}`;
}

/**
 * The short check summary a pull request's description ends with (Markdown): the problems the
 * change made, then as notes what was already wrong in the files it touched.
 */
export function checkSummary(run: CheckRun, policy: 'draft' | 'fail' | 'publish'): string {
  return `${gatingSummary(run, policy)}${notesOf(run)}`;
}

function gatingSummary(run: CheckRun, policy: 'draft' | 'fail' | 'publish'): string {
  const results = run.results
    .map(
      (result) =>
        `${result.status === 'passed' ? '✓' : result.status === 'failed' ? '✗' : '!'} ${result.name}`,
    )
    .join(' · ');
  if (run.status !== 'failed') {
    const errors = run.results.filter((result) => result.status === 'error');
    const note = errors.map((result) => `\n- ${result.name} could not run: ${result.message}`).join('');
    return `**Checks:** ${run.status === 'passed' ? 'passed' : 'incomplete'} (${results})${note}`;
  }
  const problems = problemsOf(run);
  const listed = problems.slice(0, MAX_LISTED).map(listItem);
  const more =
    problems.length > MAX_LISTED
      ? `\n- … and ${problems.length - MAX_LISTED} more (see the job's checks)`
      : '';
  const why =
    policy === 'publish'
      ? 'The project publishes even when checks fail; review these before merging.'
      : 'This pull request is a draft until they are fixed.';
  return `**Checks:** failed (${results}). ${why}\n\n${listed.join('\n')}${more}`;
}

/** Problems the base already had: the reviewer may want to know, the change is not blamed. */
function notesOf(run: CheckRun): string {
  const notes = run.results.flatMap((result) =>
    (result.notes ?? []).map((note) => ({ ...note, check: result.name })),
  );
  if (notes.length === 0) return '';
  const listed = notes.slice(0, MAX_LISTED).map(listItem);
  const more = notes.length > MAX_LISTED ? `\n- … and ${notes.length - MAX_LISTED} more` : '';
  return `\n\n**Notes:** ${notes.length} problem${notes.length === 1 ? ' was' : 's were'} already there before this change, in the files it touched (not blocking):\n\n${listed.join('\n')}${more}`;
}

function listItem(problem: CheckProblem & { check: string }): string {
  const where = `${problem.path}${problem.line ? `:${problem.line}` : ''}`;
  const message = problem.message.length > 500 ? `${problem.message.slice(0, 499)}…` : problem.message;
  const [first = '', ...rest] = message.split('\n');
  if (rest.join('').trim() === '') return `- \`${where}\` (${problem.check}) ${first}`;
  // A command's output keeps its lines: a code block in the list item, fenced longer than any run
  // of backticks in it.
  const longest = Math.max(0, ...(message.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  const block = [`${fence}text`, ...rest, fence].map((line) => `  ${line}`).join('\n');
  return `- \`${where}\` (${problem.check}) ${first}\n\n${block}`;
}
