/**
 * Gitea's and Forgejo's webhook payloads (docs.gitea.com/usage/webhooks, forgejo.org/docs/latest/user/webhooks):
 * `push`, `pull_request` (closed and merged), `issue_comment` or `pull_request_comment`
 * (created), and `issues` (opened, label_updated). Their payloads carry no permission of a comment's author: the automations ask the
 * host's collaborator permission API, never take the payload's word.
 */
import { z } from 'zod';
import type { RepositoryIdentifiers } from '../../domain/repository-match.js';
import {
  branchOf,
  commitOrNull,
  commitSchema,
  type HookReader,
  ignored,
  readPayload,
  toCommit,
} from './read.js';

const repository = z.object({
  full_name: z.string().min(1),
  clone_url: z.string().nullish(),
  ssh_url: z.string().nullish(),
  html_url: z.string().nullish(),
});

const identifiers = (repo: z.infer<typeof repository>): RepositoryIdentifiers => ({
  urls: [repo.clone_url, repo.ssh_url, repo.html_url].filter((url): url is string => typeof url === 'string'),
  fullName: repo.full_name,
});

const push = z.object({
  ref: z.string(),
  before: z.string().nullish(),
  after: z.string(),
  commits: z.array(commitSchema).nullish(),
  repository,
});

const pullRequest = z.object({
  action: z.string(),
  pull_request: z.object({
    number: z.number().int(),
    title: z.string(),
    body: z.string().nullish(),
    html_url: z.string(),
    merged: z.boolean().nullish(),
    merge_commit_sha: z.string().nullish(),
    base: z.object({ ref: z.string() }),
  }),
  repository,
});

const comment = z.object({
  action: z.string(),
  issue: z.object({
    number: z.number().int(),
    title: z.string(),
    html_url: z.string(),
    pull_request: z.unknown().nullish(),
  }),
  comment: z.object({ body: z.string(), html_url: z.string(), user: z.object({ login: z.string() }) }),
  is_pull: z.boolean().nullish(),
  repository,
});

const issues = z.object({
  action: z.string(),
  issue: z.object({
    number: z.number().int(),
    title: z.string(),
    body: z.string().nullish(),
    html_url: z.string(),
    labels: z.array(z.object({ name: z.string() })).nullish(),
    pull_request: z.unknown().nullish(),
  }),
  repository,
});

/**
 * `issues` opened or `label_updated` (Gitea sends a label change under the `issues` event; its
 * payload has the labels the issue carries now, not the one added).
 */
const readIssues: HookReader = (input) => {
  const body = readPayload(issues, input.payload, input.eventName);
  if (body.action !== 'opened' && body.action !== 'label_updated')
    return ignored(input, `issue ${body.action}`);
  if (body.issue.pull_request) return ignored(input, 'a pull request');
  const { issue } = body;
  return {
    kind: 'event',
    deliveryId: input.deliveryId,
    eventName: input.eventName,
    repository: identifiers(body.repository),
    event: (match) => ({
      kind: 'issue',
      repository: match,
      action: body.action === 'opened' ? 'opened' : 'labeled',
      number: issue.number,
      title: issue.title,
      body: issue.body ?? '',
      url: issue.html_url,
      labels: (issue.labels ?? []).map((label) => label.name),
      addedLabels: null,
    }),
  };
};

export const readGiteaHook: HookReader = (input) => {
  const { eventName, deliveryId, payload } = input;
  if (eventName === 'issues') return readIssues(input);
  if (eventName === 'push') {
    const body = readPayload(push, payload, eventName);
    const branch = branchOf(body.ref);
    if (!branch) return ignored(input, 'not a branch');
    if (!commitOrNull(body.after)) return ignored(input, 'branch deleted');
    return {
      kind: 'event',
      deliveryId,
      eventName,
      repository: identifiers(body.repository),
      event: (match) => ({
        kind: 'push',
        repository: match,
        branch,
        before: commitOrNull(body.before),
        after: body.after,
        commits: (body.commits ?? []).map(toCommit),
      }),
    };
  }
  if (eventName === 'pull_request') {
    const body = readPayload(pullRequest, payload, eventName);
    const pull = body.pull_request;
    if (body.action !== 'closed' || !pull.merged) return ignored(input, 'not a merge');
    return {
      kind: 'event',
      deliveryId,
      eventName,
      repository: identifiers(body.repository),
      event: (match) => ({
        kind: 'pull_request_merged',
        repository: match,
        branch: pull.base.ref,
        number: pull.number,
        title: pull.title,
        body: pull.body ?? '',
        url: pull.html_url,
        mergeCommit: pull.merge_commit_sha ?? null,
      }),
    };
  }
  if (eventName === 'issue_comment' || eventName === 'pull_request_comment') {
    const body = readPayload(comment, payload, eventName);
    if (body.action !== 'created') return ignored(input, `comment ${body.action}`);
    const isPull = eventName === 'pull_request_comment' || Boolean(body.is_pull || body.issue.pull_request);
    const target = {
      type: isPull ? ('pull_request' as const) : ('issue' as const),
      number: body.issue.number,
      url: body.issue.html_url,
      title: body.issue.title,
    };
    return {
      kind: 'event',
      deliveryId,
      eventName,
      repository: identifiers(body.repository),
      event: (match) => ({
        kind: 'comment',
        repository: match,
        target,
        body: body.comment.body,
        author: body.comment.user.login,
        url: body.comment.html_url,
      }),
    };
  }
  return ignored(input, `event ${eventName} is not read`);
};
