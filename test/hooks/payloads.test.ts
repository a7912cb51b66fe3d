/**
 * The payloads each host sends that the receiver reads but does not turn into an event (a tag, a
 * deleted branch, a pull request closed unmerged, an edited comment, a comment on a commit), and
 * the payloads it cannot read, checked on the readers without a server.
 */
import { describe, expect, it } from 'vitest';
import type { HookHost } from '../../src/domain/hook-secret.js';
import { HookPayloadError, readHook } from '../../src/hosts/hooks/index.js';
import { type HookSpec, hookSender } from '../support/host-hooks.js';

const WEB: Record<HookHost, string> = {
  github: 'https://github.com',
  gitlab: 'https://gitlab.example.com',
  gitea: 'https://gitea.example.com',
};
const EVENT_HEADER: Record<HookHost, string> = {
  github: 'x-github-event',
  gitlab: 'x-gitlab-event',
  gitea: 'x-gitea-event',
};

/** A payload as a test edits it: the hosts' shapes, field by field, with no type of ours. */
// biome-ignore lint/suspicious/noExplicitAny: the tests reach into the hosts' payloads freely
type Payload = Record<string, any>;

/** The host's message for `spec`, changed by `edit`, as the receiver reads it. */
function read(host: HookHost, spec: HookSpec, edit: (payload: Payload) => void = () => {}) {
  const message = hookSender(host, WEB[host]).hookMessage('org/docs', spec);
  const payload = structuredClone(message.payload) as Payload;
  edit(payload);
  const body = Buffer.from(JSON.stringify(payload));
  return readHook(host, { [EVENT_HEADER[host]]: message.event, 'x-github-delivery': 'd-1' }, body, payload);
}

describe.each(['github', 'gitlab', 'gitea'] as const)('%s payloads', (host) => {
  it('ignores a tag, a deleted branch, a pull request closed unmerged and an edited comment', () => {
    expect(read(host, { kind: 'push' }, (p) => (p.ref = 'refs/tags/v1.0'))).toMatchObject({
      kind: 'ignored',
      reason: 'not a branch',
    });
    expect(read(host, { kind: 'push' }, (p) => (p.after = '0'.repeat(40)))).toMatchObject({
      kind: 'ignored',
      reason: 'branch deleted',
    });
    const unmerged = read(host, { kind: 'merged' }, (p) => {
      if (host === 'gitlab') p.object_attributes.action = 'close';
      else p.pull_request.merged = false;
    });
    expect(unmerged).toMatchObject({ kind: 'ignored', reason: 'not a merge' });
    const edited = read(host, { kind: 'comment' }, (p) => {
      if (host === 'gitlab') p.object_attributes.action = 'update';
      else p.action = 'edited';
    });
    expect(edited.kind).toBe('ignored');
  });

  it('takes a new branch’s push with no head before it, and the files of every commit once', () => {
    const hook = read(host, { kind: 'push', files: ['a.md', 'b.md'] }, (p) => {
      p.before = '0'.repeat(40);
      p.commits.push({ ...p.commits[0], id: 'c'.repeat(40), modified: ['a.md'], added: ['c.md'] });
    });
    if (hook.kind !== 'event') throw new Error('not an event');
    const event = hook.event({ kind: 'context', name: 'product' });
    expect(event).toMatchObject({
      kind: 'push',
      before: null,
      repository: { kind: 'context', name: 'product' },
    });
    if (event.kind !== 'push') throw new Error('not a push');
    expect(event.commits.map((commit) => commit.files)).toEqual([
      ['a.md', 'b.md'],
      ['c.md', 'a.md'],
    ]);
  });

  it('says which part of a payload it cannot read', () => {
    expect(() =>
      read(host, { kind: 'merged' }, (p) => delete (p.pull_request ?? p.object_attributes).title),
    ).toThrow(HookPayloadError);
    expect(() => read(host, { kind: 'push' }, (p) => (p.commits = 'none'))).toThrow(/commits/);
  });
});

it('ignores a GitLab comment on a commit, and a GitHub ping', () => {
  expect(
    read('gitlab', { kind: 'comment' }, (p) => (p.object_attributes.noteable_type = 'Commit')),
  ).toMatchObject({
    kind: 'ignored',
    reason: 'comment on a Commit',
  });
  const ping = readHook('github', { 'x-github-event': 'ping' }, Buffer.from('{}'), {
    zen: 'Keep it simple.',
  });
  expect(ping).toMatchObject({ kind: 'ignored', eventName: 'ping' });
});

it('reads a Gitea pull-request comment, and a GitLab delivery without its id by the body’s hash', () => {
  const comment = read('gitea', { kind: 'comment', on: 'issue' });
  if (comment.kind !== 'event') throw new Error('not an event');
  const event = comment.event({ kind: 'content' });
  expect(event).toMatchObject({ target: { type: 'issue' }, author: 'reviewer' });
  // Nothing in the payload stands for the author's access: the host is asked when it matters.
  expect(event).not.toHaveProperty('authorCanWrite');
  const message = hookSender('gitlab', WEB.gitlab).hookMessage('org/docs', { kind: 'push' });
  const body = Buffer.from(JSON.stringify(message.payload));
  const first = readHook('gitlab', { 'x-gitlab-event': 'Push Hook' }, body, message.payload);
  const again = readHook('gitlab', { 'x-gitlab-event': 'Push Hook' }, Buffer.from(body), message.payload);
  expect(first.deliveryId).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(again.deliveryId).toBe(first.deliveryId);
});
