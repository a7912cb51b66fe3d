/**
 * What one Slack message does (docs/slack.md#what-the-app-does): a mention in a mapped channel, or a
 * direct message naming a project, asks for a job; a reply in a job's thread (or a mention there)
 * is its follow-up. Who may ask: the Slack users listed for the project when it lists any, else
 * the members of its mapped channels. The answer goes in the thread: "On it" with the job's page,
 * or why nothing started and what to do. Returns what came of it, in words, for the event's row.
 */
import { ServiceError } from '../../domain/errors.js';
import type { Project } from '../../domain/project.js';
import { type SlackMessage, threadOf, withoutMention } from '../../domain/slack.js';
import type { JobOperationDeps } from '../../operations/create-job.js';
import type { Store } from '../../store/store.js';
import { askForWork } from '../ask.js';
import type { SlackApi } from './client.js';

export interface SlackHandlerDeps extends JobOperationDeps {
  api: SlackApi;
  /** Where the dashboard is served, for the job's link. */
  publicUrl: () => string;
}

export const jobPage = (publicUrl: string, projectId: string, jobId: string) =>
  `${publicUrl}/ui/projects/${projectId}/jobs/${jobId}`;

/** What to do about a refusal, for the person who asked. */
const WHAT_TO_DO: Partial<Record<string, string>> = {
  rate_limited: 'The project asked for too much this hour: ask again later.',
  too_many_active_jobs: 'The project has as many jobs running as it may: ask again when one is done.',
  budget_exceeded: "The project's budget for today is spent: ask again tomorrow, or raise it.",
  invalid_request: 'Say it again, shorter or plainer.',
  job_archived: "The thread's job is archived: ask in a new message, outside this thread.",
  model_not_allowed: "Fix the project's model in its settings, then ask again.",
};

/** The project a direct message names with its first word (its id, or a name no other project has), and what it asks. */
async function namedProject(store: Store, text: string): Promise<{ project: Project; rest: string } | null> {
  const match = /^\s*([^\s:,]+)[:,]?\s+([\s\S]+)$/.exec(text);
  if (!match?.[1] || !match[2]) return null;
  const word = match[1].toLowerCase();
  const projects = await store.projects.list();
  // An id names one project; a name, only when no other project has it.
  const byId = projects.filter((candidate) => candidate.id.toLowerCase() === word);
  const byName = projects.filter((candidate) => candidate.name.toLowerCase() === word);
  const [project] = byId.length === 1 ? byId : byName.length === 1 ? byName : [];
  return project ? { project, rest: match[2] } : null;
}

/** Whether the message's author may ask the project: listed, or (with no list) in a mapped channel. */
async function mayAsk(deps: SlackHandlerDeps, projectId: string, message: SlackMessage): Promise<boolean> {
  const { channels, users } = await deps.store.slack.mapping(projectId);
  if (users.length > 0) return users.includes(message.userId);
  if (channels.includes(message.channelId)) return true;
  for (const channel of channels) if (await deps.api.isMember(channel, message.userId)) return true;
  return false;
}

/** What the thread said before this message, as the agent's context. */
async function conversationBefore(deps: SlackHandlerDeps, message: SlackMessage) {
  if (!message.threadTs) return [];
  const messages = await deps.api.thread(message.channelId, message.threadTs);
  return messages
    .filter((each) => each.ts !== message.ts)
    .map((each) => ({ author: `<@${each.user}>`, text: withoutMention(each.text, message.botUserId) }));
}

/** The project a message asks, its request, and the job its thread has; or why it asks none. */
async function target(
  deps: SlackHandlerDeps,
  message: SlackMessage,
): Promise<{ projectId: string; text: string; jobId: string | null } | { none: string; hint?: string }> {
  const thread = await deps.store.slack.thread(message.channelId, threadOf(message));
  const text = withoutMention(message.text, message.botUserId);
  if (thread) return { projectId: thread.projectId, text, jobId: thread.jobId };
  if (message.kind === 'reply') return { none: 'a reply in a thread that has no job' };
  if (message.kind === 'direct') {
    const named = await namedProject(deps.store, text);
    if (named) return { projectId: named.project.id, text: named.rest, jobId: null };
    return {
      none: 'a direct message that names no project',
      hint: 'Start with the project you ask, its id or its one-word name, then what to do: `docs: fix the typo on the install page`.',
    };
  }
  const projectId = await deps.store.slack.channelProject(message.channelId);
  if (projectId) return { projectId, text, jobId: null };
  return {
    none: 'a mention in a channel mapped to no project',
    hint: `This channel asks no project yet. Map it with \`agentjobs project slack add PROJECT --channel ${message.channelId}\` or on the project's settings page.`,
  };
}

/**
 * Posts an answer in the thread. A failed post is logged, not thrown: the work it reports is done,
 * and trying the event again would ask for it twice (the job's finish is still posted later).
 */
async function say(deps: SlackHandlerDeps, message: SlackMessage, text: string): Promise<void> {
  try {
    await deps.api.post(message.channelId, threadOf(message), text);
  } catch (error) {
    deps.log?.warn({ err: error, channel: message.channelId }, 'could not answer in a Slack thread');
  }
}

export async function handleSlackMessage(deps: SlackHandlerDeps, eventId: string, message: SlackMessage) {
  const threadTs = threadOf(message);
  const found = await target(deps, message);
  if ('none' in found) {
    if (found.hint) await say(deps, message, found.hint);
    return found.none;
  }
  if (!(await mayAsk(deps, found.projectId, message))) {
    deps.log?.warn(
      { projectId: found.projectId, user: message.userId },
      'a Slack user who may not ask the project',
    );
    return `${message.userId} may not ask project ${found.projectId}`;
  }
  if (!found.text) {
    await say(deps, message, 'What should I do? Say it after the mention.');
    return 'an empty request';
  }
  try {
    const answer = await askForWork(deps, {
      projectId: found.projectId,
      text: found.text,
      place: 'Slack thread',
      conversation: found.jobId ? [] : await conversationBefore(deps, message),
      jobId: found.jobId,
      idempotencyKey: `slack:${eventId}`,
    });
    if (answer.kind === 'created')
      await deps.store.slack.addThread({
        channelId: message.channelId,
        threadTs,
        projectId: found.projectId,
        jobId: answer.job.id,
      });
    const page = jobPage(deps.publicUrl(), found.projectId, answer.job.id);
    await say(
      deps,
      message,
      answer.kind === 'created' ? `On it: ${page}` : `On it, as a follow-up of the job: ${page}`,
    );
    return `${answer.kind} job ${answer.job.id}`;
  } catch (error) {
    // A draining process or a fault: the event is tried again (by this process or another).
    if (!ServiceError.isInstance(error) || error.code === 'unavailable' || !error.expected) throw error;
    const refusal = error;
    const todo = WHAT_TO_DO[refusal.code] ?? '';
    await say(deps, message, `Nothing started: ${refusal.message} ${todo}`.trim());
    return `refused: ${refusal.code}`;
  }
}
