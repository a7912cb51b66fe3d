/**
 * One interface for every code host (docs/code-hosts.md): `local`, `github`, `gitlab` and `gitea`.
 * The worker pushes with git itself; a host supplies the credentials for that push and opens (or
 * reuses) the pull request (a GitLab merge request is one too).
 */

import { JobFailure } from '../domain/errors.js';
import type { Job } from '../domain/job.js';
import type { CodeHostKind, Project } from '../domain/project.js';
import type { OpenPullRequest, PullRequest, PullRequestState } from '../domain/pull-request.js';

export interface PullRequestInput {
  project: Project;
  job: Job;
  /** The head branch, already pushed. */
  branch: string;
  /** The branch the pull request targets. */
  base: string;
  title: string;
  body: string;
  draft: boolean;
  /** The commit the head branch points at. */
  headSha: string;
  signal?: AbortSignal;
}

/** What closing the pull request of a branch takes. */
export interface ClosePullRequestInput {
  project: Project;
  /** The head branch. */
  branch: string;
  signal?: AbortSignal;
}

/** What reading a pull request takes: its project and its number. */
export interface PullRequestQuery {
  project: Project;
  number: number;
  signal?: AbortSignal;
}

/** What putting a label on a pull request, or taking it off, takes. */
export interface PullRequestLabelInput {
  project: Project;
  number: number;
  label: string;
  /** Put it on (true) or take it off (false). */
  present: boolean;
  signal?: AbortSignal;
}

/** A pull request's state as its host tells it, and its head branch. */
export interface PullRequestStatus {
  number: number;
  state: PullRequestState;
  /** The head branch. */
  branch: string;
}

/**
 * Which of the project's repositories a thread is in: the content repository, or a context
 * repository (its name, and its address as the project holds it). A context repository is reached
 * with its own token, and through the project's API address when it is on the same instance.
 */
export type ThreadRepository = { kind: 'content' } | { kind: 'context'; name: string; repository: string };

/** A thread on a host that comments go to: a pull request's (a merge request's) or an issue's, in its repository. */
export interface ThreadTarget {
  repository: ThreadRepository;
  type: 'pull_request' | 'issue';
  number: number;
}

/** The author of a comment as the host's event names them: the user name, and GitLab's user id. */
export interface CommentAuthor {
  username: string;
  /** The host's numeric user id, when the event gave one (GitLab's members API takes only that). */
  id?: number | null;
}

/** What the host says a comment's author may do on the thread's repository. */
export interface AuthorPermission {
  /** Write access or above: GitHub write, maintain or admin; GitLab Developer or above; Gitea write, admin or owner. */
  canWrite: boolean;
  /** The host's own word for the author's role (`read`, `Reporter`, `none`…), for logs and run reasons. */
  role: string;
}

/** A pull request as a job links to it. */
export interface PullRequestLink {
  url: string;
  number: number;
}

export interface CodeHost {
  readonly kind: CodeHostKind;
  /**
   * Environment for git commands against the project's repository: credentials through
   * `askpassEnv`, never in a URL or an argument. `{}` when none are needed.
   */
  gitEnv(project: Project): Promise<Record<string, string>>;
  /**
   * Opens the pull request of `branch`, or, when the branch already has one, updates and returns
   * it: a retried run or a follow-up never opens a second.
   */
  openOrUpdatePullRequest(input: PullRequestInput): Promise<PullRequestLink>;
  /**
   * Closes the open pull request of `branch` without merging it (its job was archived). Returns
   * it, or null when the branch has none open (merged, closed by hand, never opened): nothing to do.
   */
  closePullRequest(input: ClosePullRequestInput): Promise<PullRequestLink | null>;
  /**
   * Whether pull request `number` is open, merged or closed, and its head branch; null when the
   * host has no such pull request. A follow-up reads it (docs/api.md): after a merge
   * or a close, it starts a new branch and a new pull request.
   */
  pullRequestState(input: PullRequestQuery): Promise<PullRequestStatus | null>;
  /**
   * Posts `body` as a comment on a pull request's or an issue's thread, in the thread's own
   * repository (the service answering a comment that called it). Throws `CodeHostError` when the
   * host refuses.
   */
  commentOnThread(project: Project, target: ThreadTarget, body: string): Promise<void>;
  /**
   * The author's permission on the thread's repository, asked of the host (one request): a
   * comment's payload does not prove it (GitHub's `MEMBER` and `COLLABORATOR` say nothing of write
   * access). An author the host does not know has `canWrite: false`. Throws `CodeHostError` when
   * the host refuses the question (`isRetryable` for outages).
   */
  authorPermission(
    project: Project,
    repository: ThreadRepository,
    author: CommentAuthor,
  ): Promise<AuthorPermission>;
  /**
   * Optional, on hosts with labels: puts `label` on pull request `number` (making the label in the
   * repository when it has none of that name) or takes it off. Doing either twice is no error, and
   * other labels stay. Throws `CodeHostError` when the host refuses (a token that may not label).
   */
  labelPullRequest?(input: PullRequestLabelInput): Promise<void>;
  /**
   * Optional: what the project's credentials allow (`agentjobs project check`): read the
   * repository, fetch it with git, push a branch, open a pull request. Each check says what is
   * missing when it fails. A host without it has nothing to check.
   */
  check?(project: Project): Promise<HostCheck[]>;
}

/** One finding of `CodeHost.check`. */
export interface HostCheck {
  /** `read`, `git`, `push`, `pull_request`, … */
  name: string;
  ok: boolean;
  /** What was found, or what is missing and how to grant it. */
  detail: string;
}

/**
 * Opens a project's secret (token or App private key) in plain text, or null when it has none.
 * Throws `CodeHostError` when a stored secret cannot be opened (the server's key changed), since
 * that is the operator's to fix. Its value must never reach a log, an event, an error or a response.
 */
export type ProjectSecret = (project: Project) => Promise<string | null>;

/** Opens a context repository's token (by the project and the repository's name), as `ProjectSecret` does. */
export type ContextSecret = (project: Project, name: string) => Promise<string | null>;

/**
 * The local host's pull-request records: opening one per head branch (or updating the one it has)
 * and marking one merged or closed. The store's `pullRequests` queries are one.
 */
export interface PullRequestRecords {
  openOrUpdate(input: OpenPullRequest): Promise<{ pullRequest: PullRequest; created: boolean }>;
  finish(projectId: string, number: number, state: 'merged' | 'closed'): Promise<PullRequest | undefined>;
  getByBranch(projectId: string, headBranch: string): Promise<PullRequest | undefined>;
  get(projectId: string, number: number): Promise<PullRequest | undefined>;
}

/** Finds the code host of a kind; throws `CodeHostError` for one this server cannot use. */
export type CodeHosts = (kind: CodeHostKind) => CodeHost;

/** A code host refused or failed a request. `isRetryable` for rate limits and outages. */
export class CodeHostError extends JobFailure<'code_host_error'> {
  override name = 'CodeHostError';
  readonly isRetryable: boolean;
  constructor(message: string, options: { isRetryable?: boolean; cause?: unknown } = {}) {
    super('code_host_error', message, { cause: options.cause });
    this.isRetryable = options.isRetryable ?? false;
  }
}
