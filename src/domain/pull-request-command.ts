/**
 * Commands on the agent's own pull requests (docs/automations.md, "Commands on the agent's pull
 * requests"): a trusted comment on a job's pull request that is the project's mention and one
 * command word, and nothing else, is that command rather than a follow-up.
 */

/** `stop`: no more automation runs group into the job; `rebase`: its branch is made again on its base; `retry`: its last prompt runs again. */
export const PULL_REQUEST_COMMANDS = ['stop', 'rebase', 'retry'] as const;
export type PullRequestCommand = (typeof PULL_REQUEST_COMMANDS)[number];

/** The commands that are a message of the job's next run (`stop` makes no run). */
export type RunCommand = Exclude<PullRequestCommand, 'stop'>;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The command `body` gives, or null when it is a follow-up. The whole comment must be the mention,
 * then the command word, both in any case, with at most a `.` or `!` after it and white space
 * around: `@agentjobs stop`, `@AgentJobs Retry!`. Anything more (`@agentjobs stop the intro from
 * repeating`, `@agentjobs stop please`, a greeting before the mention) is a prompt: a word the
 * service took for a command by mistake would change the job without a run to undo it, where a
 * command taken for a prompt costs one run that a person can see.
 */
export function pullRequestCommandOf(body: string, mention: string): PullRequestCommand | null {
  const words = PULL_REQUEST_COMMANDS.join('|');
  const match = new RegExp(`^\\s*${escapeRegExp(mention)}\\s+(${words})[.!]?\\s*$`, 'i').exec(body);
  return match ? ((match[1] as string).toLowerCase() as PullRequestCommand) : null;
}

/** What a `retry` message asks the agent: the job's last prompt, again. */
export function retryPrompt(author: string, lastPrompt: string): string {
  return `${author} asked on the pull request to run this job's last prompt again. Do it again from the branch as it is now:\n\n${lastPrompt}`;
}

/** What a `rebase` message asks the agent; the run has made the branch again on `base` before it reads this. */
export function rebasePrompt(author: string, base: string): string {
  return `${author} asked on the pull request to rebase this job's branch on ${base}. The service made the branch again from ${base} as it is now, with this job's changes re-applied in one commit. Resolve the conflicts it names, if any, keeping what both sides meant; change nothing else.`;
}
