/**
 * Issue events as the code hosts' webhooks send them (GitHub `issues`, GitLab `Issue Hook`, Gitea
 * `issues`), for the doubles' `hookMessage` (`host-hooks.ts`): GitHub names the label added, GitLab
 * the labels before and after, Gitea only the labels after.
 */
import type { HookHostName, HookMessage } from './host-hooks.js';

/** An issue opened (with `labels`), or labelled with `added` (then carrying `labels` and it). */
export interface IssueSpec {
  kind: 'issue';
  action?: 'opened' | 'labeled';
  number?: number;
  title?: string;
  body?: string;
  labels?: string[];
  added?: string;
}

/** The issue's fields every host's payload shares in some shape. */
function issueParts(spec: IssueSpec) {
  const action = spec.action ?? 'opened';
  const before = spec.labels ?? [];
  const after = action === 'labeled' && spec.added ? [...before, spec.added] : before;
  return {
    action,
    number: spec.number ?? 5,
    title: spec.title ?? 'Document the --verbose flag',
    body: spec.body ?? 'The CLI gained --verbose; the docs do not say so.',
    before,
    after,
  };
}

function githubOrGiteaIssue(
  host: 'github' | 'gitea',
  webBase: string,
  fullName: string,
  spec: IssueSpec,
  repository: unknown,
): HookMessage {
  const parts = issueParts(spec);
  const issue = {
    id: 9000 + parts.number,
    number: parts.number,
    title: parts.title,
    body: parts.body,
    html_url: `${webBase}/${fullName}/issues/${parts.number}`,
    state: 'open',
    labels: parts.after.map((name, index) => ({ id: index + 1, name, color: 'ededed' })),
    user: { login: 'reporter' },
    ...(host === 'gitea' ? { pull_request: null } : {}),
  };
  const action = parts.action === 'opened' ? 'opened' : host === 'github' ? 'labeled' : 'label_updated';
  return {
    event: 'issues',
    payload: {
      action,
      issue,
      ...(host === 'github' && parts.action === 'labeled' ? { label: { id: 99, name: spec.added } } : {}),
      repository,
      sender: { login: 'reporter', id: 2 },
    },
  };
}

function gitlabIssue(webBase: string, fullName: string, spec: IssueSpec, project: unknown): HookMessage {
  const parts = issueParts(spec);
  const labels = (names: string[]) =>
    names.map((title, index) => ({ id: index + 1, title, color: '#ededed' }));
  return {
    event: 'Issue Hook',
    payload: {
      object_kind: 'issue',
      event_type: 'issue',
      user: { id: 4242, username: 'reporter', name: 'Reporter' },
      project,
      object_attributes: {
        id: 9000 + parts.number,
        iid: parts.number,
        title: parts.title,
        description: parts.body,
        url: `${webBase}/${fullName}/-/issues/${parts.number}`,
        action: parts.action === 'opened' ? 'open' : 'update',
        state: 'opened',
        confidential: false,
      },
      labels: labels(parts.after),
      changes:
        parts.action === 'labeled'
          ? { labels: { previous: labels(parts.before), current: labels(parts.after) } }
          : {},
    },
  };
}

/** The host's issue event; `repository` is the host's repository (GitLab: project) block. */
export function issueMessage(
  host: HookHostName,
  webBase: string,
  fullName: string,
  spec: IssueSpec,
  repository: unknown,
): HookMessage {
  return host === 'gitlab'
    ? gitlabIssue(webBase, fullName, spec, repository)
    : githubOrGiteaIssue(host, webBase, fullName, spec, repository);
}
