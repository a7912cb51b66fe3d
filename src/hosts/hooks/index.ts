/**
 * The code hosts' webhooks, read: each host's signature check and payloads behind one call, for
 * the hook receipt (`operations/hook-receipt.ts`). Knows no storage and no server.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { HookHost } from '../../domain/hook-secret.js';
import { readGiteaHook } from './gitea.js';
import { readGithubHook } from './github.js';
import { readGitlabHook } from './gitlab.js';
import { deliveryIdOf, HOOK_HEADERS, type HookReader, type ReadHook } from './read.js';
import { headerOf } from './signature.js';

export { HookPayloadError, type ReadHook } from './read.js';
export { verifyHookSignature } from './signature.js';

const READERS: Record<HookHost, HookReader> = {
  github: readGithubHook,
  gitlab: readGitlabHook,
  gitea: readGiteaHook,
};

/**
 * One delivery of `host`, its signature already checked: the event it holds, or why it is
 * ignored. Throws `HookPayloadError` when a payload lacks a part this reads.
 */
export function readHook(
  host: HookHost,
  headers: IncomingHttpHeaders,
  body: Buffer,
  payload: unknown,
): ReadHook {
  const names = HOOK_HEADERS[host];
  const eventName =
    names.event
      .map((name) => headerOf(headers, name))
      .find(Boolean)
      ?.trim() ?? '';
  const deliveryId = deliveryIdOf(headers, names.delivery, body);
  if (!eventName) return { kind: 'ignored', deliveryId, eventName, reason: 'no event header' };
  return READERS[host]({ eventName, deliveryId, payload });
}
