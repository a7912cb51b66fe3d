/**
 * What a code host told us (docs/automations.md): a push, a merged pull request or a
 * comment, read from the host's webhook or found by polling, in one shape whatever the host. The
 * receiver records these; the automations read them.
 */
import type { IssueActivity } from './issue-trigger.js';
import type { CodeHostKind } from './project.js';

/** Which of the project's repositories an event is about. */
export type RepositoryMatch = { kind: 'content' } | { kind: 'context'; name: string };

/** One commit of a push, as the host names it. */
export interface PushedCommit {
  id: string;
  message: string;
  /** Paths the host says the commit added, modified or removed (may be empty when it does not say). */
  files: string[];
}

/** New commits on a branch. */
export interface PushEvent {
  kind: 'push';
  repository: RepositoryMatch;
  branch: string;
  /** The head before the push; null when the branch is new or the head was not known. */
  before: string | null;
  after: string;
  commits: PushedCommit[];
}

/** A pull request merged into `branch`. */
export interface PullRequestMergedEvent {
  kind: 'pull_request_merged';
  repository: RepositoryMatch;
  branch: string;
  number: number;
  title: string;
  body: string;
  url: string;
  mergeCommit: string | null;
}

/** A comment on a pull request or an issue. */
export interface CommentEvent {
  kind: 'comment';
  repository: RepositoryMatch;
  target: { type: 'pull_request' | 'issue'; number: number; url: string; title: string };
  body: string;
  /** The author's user name. Whether they may write is asked of the host when the comment calls the service. */
  author: string;
  /** The author's numeric id, when the host's payload gives one (GitLab's members API needs it). */
  authorId?: number | null;
  url: string;
}

/** An issue opened, or labelled, in one of the project's repositories (not a pull request). */
export interface IssueEvent extends IssueActivity {
  kind: 'issue';
  repository: RepositoryMatch;
  number: number;
  title: string;
  body: string;
  url: string;
}

/** An issue created, or labelled, in a Linear team (`POST /v2/hooks/{projectId}/linear`). */
export interface LinearIssueEvent extends IssueActivity {
  kind: 'linear_issue';
  /** Linear's id of the issue: it stays when the title (and with it the URL) or the team changes. */
  id: string;
  /** The team's key (`ENG`). */
  team: string;
  /** The issue's identifier (`ENG-123`). */
  identifier: string;
  title: string;
  body: string;
  url: string;
}

export type HostEvent = PushEvent | PullRequestMergedEvent | CommentEvent | IssueEvent | LinearIssueEvent;

/** A host event as received: where it came from and the host's delivery id (deduplication). */
export interface ReceivedHostEvent {
  id: string;
  projectId: string;
  host: Exclude<CodeHostKind, 'local'> | 'poll' | 'linear';
  /** The host's delivery id (`X-GitHub-Delivery`, `X-Gitlab-Event-UUID`, `X-Gitea-Delivery`, `Linear-Delivery`), or the poller's. */
  deliveryId: string;
  event: HostEvent;
  receivedAt: string;
}
