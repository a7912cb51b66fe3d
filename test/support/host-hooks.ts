/**
 * The code hosts' webhooks as the doubles send them (docs/api.md#code-host-webhooks):
 * payloads shaped as each host documents them, the headers each host sends (event name, delivery
 * id, user agent) and each host's proof of the secret, computed here with node:crypto on the
 * exact bytes sent:
 * - GitHub ("Validating webhook deliveries"): `X-Hub-Signature-256: sha256=<hex HMAC-SHA256>`,
 *   `X-GitHub-Event`, `X-GitHub-Delivery` (a GUID), `User-Agent: GitHub-Hookshot/…`;
 * - GitLab ("Webhooks"): `X-Gitlab-Token: <secret>`, `X-Gitlab-Event`, `X-Gitlab-Event-UUID`,
 *   `X-Gitlab-Webhook-UUID`, `User-Agent: GitLab/…`;
 * - Gitea ("Webhooks"): `X-Gitea-Signature: <hex HMAC-SHA256>`, `X-Gitea-Event`, `X-Gitea-Delivery`,
 *   and the same as `X-Gogs-*`/`X-Forgejo-*` where the host sends them.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { type IssueSpec, issueMessage } from './issue-hooks.js';

export type HookHostName = 'github' | 'gitlab' | 'gitea';

/** What a test asks a double to send: an event of the host's kinds, about `owner/name`. */
export type HookSpec =
  | { kind: 'push'; branch?: string; before?: string; after?: string; files?: string[] }
  | {
      kind: 'merged';
      number?: number;
      branch?: string;
      title?: string;
      /** The merge commit's id (default `b` × 40). */
      mergeCommit?: string;
    }
  | {
      kind: 'comment';
      on?: 'pull_request' | 'issue';
      number?: number;
      body?: string;
      author?: string;
      /** GitHub's `author_association` (default OWNER). */
      association?: string;
      /** The host's id of the comment; a new one for each message by default, as a host gives. */
      id?: number;
    }
  /** GitHub only: a comment on a pull request's diff. */
  | {
      kind: 'review_comment';
      number?: number;
      body?: string;
      author?: string;
      association?: string;
      id?: number;
    }
  | IssueSpec
  /** An event the receiver does not read (a star, a tag, a wiki page). */
  | { kind: 'other' };

/** A hook ready to send: the host's event name and the payload. */
export interface HookMessage {
  event: string;
  payload: unknown;
}

/** How to sign: as the host does (default), with another secret, or not at all. */
export interface SendOptions {
  deliveryId?: string;
  signature?: 'valid' | 'missing' | { secret: string };
  /** Sent instead of the payload's JSON (malformed, oversized or not UTF-8 bodies); signed all the same, byte for byte. */
  rawBody?: string | Buffer;
}

export interface SentHook {
  status: number;
  body: Record<string, unknown>;
  deliveryId: string;
}

/** What every double gains: payloads of its host, and sending them signed. */
export interface HookSender {
  hookMessage(repository: string, spec: HookSpec): HookMessage;
  sendHook(url: string, message: HookMessage, secret: string, options?: SendOptions): Promise<SentHook>;
}

/** The next comment id a message gets: each comment a host delivers is one of its own. */
let nextCommentId = 100;
/** A user's numeric id as the doubles give it: the same for a login in their hooks and their APIs. */
export function doubleUserId(login: string): number {
  let id = 7;
  for (const char of login.toLowerCase()) id = (id * 31 + char.charCodeAt(0)) % 1_000_000;
  return 1000 + id;
}

const SHA_A = 'a'.repeat(40);
const SHA_B = 'b'.repeat(40);

/** The repository block each host sends, under `webBase` (its web address). */
function repositoryOf(host: HookHostName, webBase: string, fullName: string) {
  const hostName = new URL(webBase).hostname;
  const [owner = 'org', name = 'repo'] = fullName.split('/');
  const urls = {
    html_url: `${webBase}/${fullName}`,
    clone_url: `${webBase}/${fullName}.git`,
    ssh_url: `git@${hostName}:${fullName}.git`,
  };
  if (host === 'gitlab')
    return {
      id: 7,
      name,
      path_with_namespace: fullName,
      web_url: urls.html_url,
      git_http_url: urls.clone_url,
      git_ssh_url: urls.ssh_url,
      default_branch: 'main',
    };
  return {
    id: 7,
    name,
    full_name: fullName,
    owner: { login: owner },
    ...urls,
    git_url: `git://${hostName}/${fullName}.git`,
    default_branch: 'main',
  };
}

function githubOrGitea(
  host: 'github' | 'gitea',
  webBase: string,
  fullName: string,
  spec: HookSpec,
): HookMessage {
  const repository = repositoryOf(host, webBase, fullName);
  const sender = { login: 'octocat', id: 1 };
  if (spec.kind === 'issue') return issueMessage(host, webBase, fullName, spec, repository);
  if (spec.kind === 'push') {
    const files = spec.files ?? ['src/cli.ts'];
    return {
      event: 'push',
      payload: {
        ref: `refs/heads/${spec.branch ?? 'main'}`,
        before: spec.before ?? SHA_A,
        after: spec.after ?? SHA_B,
        created: false,
        deleted: false,
        compare: `${webBase}/${fullName}/compare/${SHA_A}...${SHA_B}`,
        commits: [
          {
            id: spec.after ?? SHA_B,
            message: 'Add --verbose to the CLI',
            added: [],
            modified: files,
            removed: [],
            timestamp: '2026-11-26T10:00:00Z',
          },
        ],
        head_commit: { id: spec.after ?? SHA_B, message: 'Add --verbose to the CLI' },
        repository,
        pusher: { name: 'octocat' },
        sender,
      },
    };
  }
  if (spec.kind === 'merged') {
    const number = spec.number ?? 12;
    return {
      event: 'pull_request',
      payload: {
        action: 'closed',
        number,
        pull_request: {
          number,
          state: 'closed',
          title: spec.title ?? 'Add --verbose',
          body: 'The CLI gains a --verbose flag.',
          html_url: `${webBase}/${fullName}/pull${host === 'github' ? '' : 's'}/${number}`,
          merged: true,
          merge_commit_sha: spec.mergeCommit ?? SHA_B,
          base: { ref: spec.branch ?? 'main' },
          head: { ref: 'verbose' },
          user: sender,
        },
        repository,
        sender,
      },
    };
  }
  if (spec.kind === 'comment' || spec.kind === 'review_comment') {
    const number = spec.number ?? 3;
    const on = spec.kind === 'review_comment' ? 'pull_request' : (spec.on ?? 'pull_request');
    const threadUrl = `${webBase}/${fullName}/${on === 'pull_request' ? (host === 'github' ? 'pull' : 'pulls') : 'issues'}/${number}`;
    const id = spec.id ?? nextCommentId++;
    const comment = {
      id,
      body: spec.body ?? '@agentjobs please also update the quickstart',
      html_url: `${threadUrl}#issuecomment-${id}`,
      user: { login: spec.author ?? 'reviewer' },
      ...(host === 'github' ? { author_association: spec.association ?? 'OWNER' } : {}),
    };
    if (spec.kind === 'review_comment')
      return {
        event: 'pull_request_review_comment',
        payload: {
          action: 'created',
          comment,
          pull_request: { number, title: 'Docs for --verbose', html_url: threadUrl },
          repository,
          sender,
        },
      };
    const issue = {
      number,
      title: 'Docs for --verbose',
      html_url: threadUrl,
      ...(on === 'pull_request'
        ? { pull_request: { html_url: threadUrl } }
        : host === 'gitea'
          ? { pull_request: null }
          : {}),
    };
    return {
      event: 'issue_comment',
      payload: {
        action: 'created',
        issue,
        comment,
        repository,
        sender,
        ...(host === 'gitea' ? { is_pull: on === 'pull_request' } : {}),
      },
    };
  }
  return {
    event: host === 'github' ? 'star' : 'create',
    payload: { action: 'created', ref: 'v1.0', repository, sender },
  };
}

function gitlabMessage(webBase: string, fullName: string, spec: HookSpec): HookMessage {
  if (spec.kind === 'issue')
    return issueMessage('gitlab', webBase, fullName, spec, repositoryOf('gitlab', webBase, fullName));
  const project = repositoryOf('gitlab', webBase, fullName);
  const username = spec.kind === 'comment' ? (spec.author ?? 'reviewer') : 'root';
  const user = { id: doubleUserId(username), username, name: 'Reviewer' };
  if (spec.kind === 'push')
    return {
      event: 'Push Hook',
      payload: {
        object_kind: 'push',
        event_name: 'push',
        ref: `refs/heads/${spec.branch ?? 'main'}`,
        before: spec.before ?? SHA_A,
        after: spec.after ?? SHA_B,
        user_username: 'root',
        project,
        commits: [
          {
            id: spec.after ?? SHA_B,
            message: 'Add --verbose to the CLI',
            added: [],
            modified: spec.files ?? ['src/cli.ts'],
            removed: [],
          },
        ],
        total_commits_count: 1,
      },
    };
  if (spec.kind === 'merged') {
    const iid = spec.number ?? 12;
    return {
      event: 'Merge Request Hook',
      payload: {
        object_kind: 'merge_request',
        event_type: 'merge_request',
        user,
        project,
        object_attributes: {
          iid,
          title: spec.title ?? 'Add --verbose',
          description: 'The CLI gains a --verbose flag.',
          url: `${webBase}/${fullName}/-/merge_requests/${iid}`,
          action: 'merge',
          state: 'merged',
          source_branch: 'verbose',
          target_branch: spec.branch ?? 'main',
          merge_commit_sha: spec.mergeCommit ?? SHA_B,
        },
      },
    };
  }
  if (spec.kind === 'comment') {
    const iid = spec.number ?? 3;
    const id = spec.id ?? nextCommentId++;
    const on = spec.on ?? 'pull_request';
    const thread = {
      iid,
      title: 'Docs for --verbose',
      url: `${webBase}/${fullName}/-/${on === 'pull_request' ? 'merge_requests' : 'issues'}/${iid}`,
    };
    return {
      event: 'Note Hook',
      payload: {
        object_kind: 'note',
        event_type: 'note',
        user,
        project,
        object_attributes: {
          id,
          note: spec.body ?? '@agentjobs please also update the quickstart',
          noteable_type: on === 'pull_request' ? 'MergeRequest' : 'Issue',
          url: `${thread.url}#note_${id}`,
          action: 'create',
        },
        ...(on === 'pull_request' ? { merge_request: thread } : { issue: thread }),
      },
    };
  }
  return { event: 'Tag Push Hook', payload: { object_kind: 'tag_push', ref: 'refs/tags/v1.0', project } };
}

const hmac = (secret: string, body: string | Buffer) =>
  createHmac('sha256', secret).update(body).digest('hex');

/** The sending half of the doubles, for `host` whose pages live under `webBase`. */
export function hookSender(host: HookHostName, webBase: string): HookSender {
  return {
    hookMessage(repository, spec) {
      return host === 'gitlab'
        ? gitlabMessage(webBase, repository, spec)
        : githubOrGitea(host, webBase, repository, spec);
    },
    async sendHook(url, message, secret, options = {}) {
      const body = options.rawBody ?? JSON.stringify(message.payload);
      const deliveryId = options.deliveryId ?? randomUUID();
      const signing = options.signature ?? 'valid';
      const key = signing === 'valid' ? secret : signing === 'missing' ? null : signing.secret;
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (host === 'github') {
        Object.assign(headers, {
          'user-agent': 'GitHub-Hookshot/a1b2c3d',
          'x-github-event': message.event,
          'x-github-delivery': deliveryId,
          'x-github-hook-id': '1',
        });
        if (key !== null) headers['x-hub-signature-256'] = `sha256=${hmac(key, body)}`;
      } else if (host === 'gitlab') {
        Object.assign(headers, {
          'user-agent': 'GitLab/17.5.0',
          'x-gitlab-event': message.event,
          'x-gitlab-event-uuid': deliveryId,
          'x-gitlab-webhook-uuid': randomUUID(),
          'x-gitlab-instance': webBase,
        });
        if (key !== null) headers['x-gitlab-token'] = key;
      } else {
        Object.assign(headers, {
          'user-agent': 'Go-http-client/1.1',
          'x-gitea-event': message.event,
          'x-gitea-event-type': message.event,
          'x-gitea-delivery': deliveryId,
          'x-gogs-event': message.event,
          'x-gogs-delivery': deliveryId,
        });
        if (key !== null) {
          headers['x-gitea-signature'] = hmac(key, body);
          headers['x-gogs-signature'] = hmac(key, body);
        }
      }
      const response = await fetch(url, {
        method: 'POST',
        headers,
        body: typeof body === 'string' ? body : new Uint8Array(body),
      });
      const text = await response.text();
      let parsed: Record<string, unknown> = {};
      try {
        parsed = JSON.parse(text) as Record<string, unknown>;
      } catch {
        parsed = { text };
      }
      return { status: response.status, body: parsed, deliveryId };
    },
  };
}
