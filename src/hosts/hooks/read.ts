/**
 * What the receiver makes of one code host's webhook (docs/api.md#code-host-webhooks):
 * the delivery id, the repository the payload names, and the event in the one shape every host
 * shares (`HostEvent`), or why it is ignored. The payload parts read are checked with zod; a
 * payload that lacks them is a `HookPayloadError` (400), never a half-read event.
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import type { HookHost } from '../../domain/hook-secret.js';
import type { HostEvent, PushedCommit, RepositoryMatch } from '../../domain/host-event.js';
import type { RepositoryIdentifiers } from '../../domain/repository-match.js';
import { headerOf } from './signature.js';

/** A payload without a part the receiver reads: the message names the part and the event. */
export class HookPayloadError extends Error {
  override name = 'HookPayloadError';
  /** Where in the payload (`pull_request.base.ref`); `` for the payload as a whole. */
  readonly path: string;
  constructor(message: string, path = '') {
    super(message);
    this.path = path;
  }
}

/** One delivery as read: an event to record once its repository is matched, or one to ignore. */
export type ReadHook =
  | { kind: 'ignored'; deliveryId: string; eventName: string; reason: string }
  | {
      kind: 'event';
      deliveryId: string;
      eventName: string;
      repository: RepositoryIdentifiers;
      /** The event, about the repository it matched. */
      event(repository: RepositoryMatch): HostEvent;
    };

/** The parts every host's handler gets: the event's name as the host sends it, and the payload. */
export interface HookInput {
  eventName: string;
  deliveryId: string;
  payload: unknown;
}

export type HookReader = (input: HookInput) => ReadHook;

/** Parses `payload` with `schema`, or says what is missing in which event. */
export function readPayload<Schema extends z.ZodType>(
  schema: Schema,
  payload: unknown,
  eventName: string,
): z.infer<Schema> {
  const result = schema.safeParse(payload);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue?.path.length ? issue.path.join('.') : 'the body';
  throw new HookPayloadError(
    `The ${eventName} payload is not one this receiver reads: ${where}: ${issue?.message ?? 'is invalid'}.`,
    issue?.path.join('.') ?? '',
  );
}

export const ignored = (input: HookInput, reason: string): ReadHook => ({
  kind: 'ignored',
  deliveryId: input.deliveryId,
  eventName: input.eventName,
  reason,
});

const ZERO_COMMIT = /^0+$/;

/** A ref of a push: the branch, or null for a tag or anything else that is not a branch. */
export const branchOf = (ref: string): string | null =>
  ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null;

/** A commit id that stands for "none" (a new or deleted branch) is null. */
export const commitOrNull = (id: string | null | undefined): string | null =>
  id && !ZERO_COMMIT.test(id) ? id : null;

/** A pushed commit as GitHub, GitLab and Gitea all send it. */
export const commitSchema = z.object({
  id: z.string().min(1),
  message: z.string(),
  added: z.array(z.string()).nullish(),
  modified: z.array(z.string()).nullish(),
  removed: z.array(z.string()).nullish(),
});

export const toCommit = (commit: z.infer<typeof commitSchema>): PushedCommit => ({
  id: commit.id,
  message: commit.message,
  files: [...new Set([...(commit.added ?? []), ...(commit.modified ?? []), ...(commit.removed ?? [])])],
});

/**
 * The host's delivery id from `header`; when a host sends none (GitLab before 15.x), the SHA-256
 * of the body, so a delivery sent twice byte for byte is still one.
 */
export function deliveryIdOf(headers: IncomingHttpHeaders, header: string, body: Buffer): string {
  const id = headerOf(headers, header)?.trim();
  if (id && id.length <= 200) return id;
  return `sha256:${createHash('sha256').update(body).digest('hex')}`;
}

/** The header naming each host's event, and the one naming its delivery. */
export const HOOK_HEADERS: Record<HookHost, { event: string[]; delivery: string }> = {
  github: { event: ['x-github-event'], delivery: 'x-github-delivery' },
  gitlab: { event: ['x-gitlab-event'], delivery: 'x-gitlab-event-uuid' },
  gitea: { event: ['x-gitea-event', 'x-forgejo-event'], delivery: 'x-gitea-delivery' },
};
