/**
 * GitLab's webhook payloads ("Webhook events", docs.gitlab.com/user/project/integrations/webhook_events):
 * `Push Hook`, `Merge Request Hook` (the `merge` action), `Note Hook` (on a merge request or an
 * issue) and `Issue Hook` (opened, or labels added). The Note Hook carries no access level of its author, only their id: the automations ask
 * GitLab's members API with it, never take the payload's word.
 */
import { z } from 'zod';
import type { RepositoryIdentifiers } from '../../domain/repository-match.js';
import {
  branchOf,
  commitOrNull,
  commitSchema,
  HookPayloadError,
  type HookReader,
  ignored,
  readPayload,
  toCommit,
} from './read.js';

const project = z.object({
  path_with_namespace: z.string().min(1),
  git_http_url: z.string().nullish(),
  git_ssh_url: z.string().nullish(),
  web_url: z.string().nullish(),
});

const identifiers = (repo: z.infer<typeof project>): RepositoryIdentifiers => ({
  urls: [repo.git_http_url, repo.git_ssh_url, repo.web_url].filter(
    (url): url is string => typeof url === 'string',
  ),
  fullName: repo.path_with_namespace,
});

const push = z.object({
  ref: z.string(),
  before: z.string().nullish(),
  after: z.string(),
  commits: z.array(commitSchema).nullish(),
  project,
});

const mergeRequest = z.object({
  object_attributes: z.object({
    iid: z.number().int(),
    title: z.string(),
    description: z.string().nullish(),
    url: z.string(),
    action: z.string().nullish(),
    target_branch: z.string(),
    merge_commit_sha: z.string().nullish(),
  }),
  project,
});

const noteable = z.object({ iid: z.number().int(), title: z.string(), url: z.string() });
const note = z.object({
  object_attributes: z.object({
    note: z.string(),
    noteable_type: z.string(),
    url: z.string(),
    action: z.string().nullish(),
  }),
  user: z.object({ username: z.string(), id: z.number().int().nullish() }),
  merge_request: noteable.nullish(),
  issue: noteable.nullish(),
  project,
});

const labelList = z.array(z.object({ title: z.string() })).nullish();
const issue = z.object({
  object_attributes: z.object({
    iid: z.number().int(),
    title: z.string(),
    description: z.string().nullish(),
    url: z.string(),
    action: z.string().nullish(),
    confidential: z.boolean().nullish(),
  }),
  labels: labelList,
  changes: z.object({ labels: z.object({ previous: labelList, current: labelList }).nullish() }).nullish(),
  project,
});

const titles = (labels: z.infer<typeof labelList>) => (labels ?? []).map((label) => label.title);

/**
 * `Issue Hook` opened, or updated with labels added. A confidential issue is never read (GitLab
 * sends those as `Confidential Issue Hook`, which is not read either): its text would reach a pull request.
 */
const readIssue: HookReader = (input) => {
  const body = readPayload(issue, input.payload, input.eventName);
  const attributes = body.object_attributes;
  if (attributes.confidential) return ignored(input, 'a confidential issue');
  const change = body.changes?.labels;
  const before = new Set(titles(change?.previous));
  const added = titles(change?.current).filter((label) => !before.has(label));
  const action = attributes.action === 'open' ? 'opened' : attributes.action === 'update' ? 'labeled' : null;
  if (action === null) return ignored(input, `issue ${attributes.action ?? 'without an action'}`);
  if (action === 'labeled' && added.length === 0) return ignored(input, 'no label added');
  return {
    kind: 'event',
    deliveryId: input.deliveryId,
    eventName: input.eventName,
    repository: identifiers(body.project),
    event: (match) => ({
      kind: 'issue',
      repository: match,
      action,
      number: attributes.iid,
      title: attributes.title,
      body: attributes.description ?? '',
      url: attributes.url,
      labels: titles(body.labels),
      addedLabels: action === 'labeled' ? added : null,
    }),
  };
};

export const readGitlabHook: HookReader = (input) => {
  const { eventName, deliveryId, payload } = input;
  if (eventName === 'Issue Hook') return readIssue(input);
  if (eventName === 'Push Hook') {
    const body = readPayload(push, payload, eventName);
    const branch = branchOf(body.ref);
    if (!branch) return ignored(input, 'not a branch');
    if (!commitOrNull(body.after)) return ignored(input, 'branch deleted');
    return {
      kind: 'event',
      deliveryId,
      eventName,
      repository: identifiers(body.project),
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
  if (eventName === 'Merge Request Hook') {
    const body = readPayload(mergeRequest, payload, eventName);
    const request = body.object_attributes;
    if (request.action !== 'merge') return ignored(input, 'not a merge');
    return {
      kind: 'event',
      deliveryId,
      eventName,
      repository: identifiers(body.project),
      event: (match) => ({
        kind: 'pull_request_merged',
        repository: match,
        branch: request.target_branch,
        number: request.iid,
        title: request.title,
        body: request.description ?? '',
        url: request.url,
        mergeCommit: request.merge_commit_sha ?? null,
      }),
    };
  }
  if (eventName === 'Note Hook') {
    const body = readPayload(note, payload, eventName);
    const attributes = body.object_attributes;
    if (attributes.action && attributes.action !== 'create')
      return ignored(input, `comment ${attributes.action}`);
    const on =
      attributes.noteable_type === 'MergeRequest'
        ? body.merge_request && { type: 'pull_request' as const, ...body.merge_request }
        : attributes.noteable_type === 'Issue'
          ? body.issue && { type: 'issue' as const, ...body.issue }
          : undefined;
    if (on === undefined) return ignored(input, `comment on a ${attributes.noteable_type}`);
    if (!on)
      throw new HookPayloadError(
        `The ${eventName} payload is not one this receiver reads: a comment on a ${attributes.noteable_type} without its ${attributes.noteable_type === 'Issue' ? 'issue' : 'merge_request'}.`,
      );
    const target = { type: on.type, number: on.iid, url: on.url, title: on.title };
    return {
      kind: 'event',
      deliveryId,
      eventName,
      repository: identifiers(body.project),
      event: (match) => ({
        kind: 'comment',
        repository: match,
        target,
        body: attributes.note,
        author: body.user.username,
        authorId: body.user.id ?? null,
        url: attributes.url,
      }),
    };
  }
  return ignored(input, `event ${eventName} is not read`);
};
