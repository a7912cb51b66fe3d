/**
 * The hook receipt (`operations/hook-receipt.ts`) called with no server at all, on every database, as a
 * later intake (a chat or issue tracker's hook) would call its like: a signed delivery is recorded
 * once per delivery id, and each refusal is a typed error that records nothing.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Project } from '../../src/domain/project.js';
import { type HookDelivery, type HookReceiver, hookReceiver } from '../../src/operations/hook-receipt.js';
import type { RecordResult } from '../../src/store/host-events.js';
import { createSecretBox } from '../../src/store/secrets.js';
import { testDialects, useTestStore } from '../support/db.js';
import { type HookMessage, hookSender } from '../support/host-hooks.js';

const box = createSecretBox('hook-receipt-test-key-0123456789abcdef0123');
const github = hookSender('github', 'https://github.com');

/** A GitHub delivery of `body`, signed with `secret` as GitHub signs. */
function signed(projectId: string, event: string, body: string | Buffer, secret: string): HookDelivery {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return {
    projectId,
    host: 'github',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(bytes).digest('hex')}`,
    },
    body: bytes,
  };
}
const message = (hook: HookMessage) => JSON.stringify(hook.payload);

describe.each(testDialects())('the hook receipt, without a server, on %s', (dialect) => {
  const t = useTestStore(dialect);
  let receive: HookReceiver;
  let project: Project;
  let secret: string;
  const noted: RecordResult[] = [];
  beforeAll(async () => {
    receive = hookReceiver({
      store: t.store,
      secrets: () => box,
      onRecorded: (result) => {
        noted.push(result);
      },
    });
    project = await t.store.projects.create({
      name: 'Docs',
      repository: 'https://github.com/org/docs.git',
      host: 'github',
    });
    secret = (await t.store.projects.rotateHookSecret(project.id, box)) ?? '';
  });
  const recorded = () => t.store.hostEvents.list(project.id);

  it('records a signed push once per delivery id, and notes the repeat', async () => {
    const push = signed(
      project.id,
      'push',
      message(github.hookMessage('org/docs', { kind: 'push' })),
      secret,
    );
    const first = await receive(push);
    expect(first.receipt).toMatchObject({ outcome: 'recorded', duplicate: false, reason: null });
    expect(first).toMatchObject({ deliveryId: push.headers['x-github-delivery'], eventName: 'push' });
    const again = await receive(push);
    expect(again.receipt).toEqual({
      outcome: 'duplicate',
      duplicate: true,
      eventId: first.receipt.eventId,
      reason: null,
    });
    expect(noted.map((result) => result.duplicate)).toEqual([false, true]);
    expect(await recorded()).toHaveLength(1);
  });

  it("ignores an event it does not read and a repository that is not the project's", async () => {
    const star = await receive(
      signed(project.id, 'star', message(github.hookMessage('org/docs', { kind: 'other' })), secret),
    );
    expect(star.receipt).toMatchObject({ outcome: 'ignored', eventId: null });
    const elsewhere = await receive(
      signed(project.id, 'push', message(github.hookMessage('org/other', { kind: 'push' })), secret),
    );
    expect(elsewhere.receipt).toEqual({
      outcome: 'ignored',
      duplicate: false,
      eventId: null,
      reason: "repository org/other is not the project's",
    });
    expect(await recorded()).toHaveLength(1);
  });

  it('refuses an unknown project, a project with no secret and a wrong signature', async () => {
    const body = message(github.hookMessage('org/docs', { kind: 'push' }));
    await expect(receive(signed('prj_none', 'push', body, secret))).rejects.toMatchObject({
      code: 'project_not_found',
    });
    const bare = await t.store.projects.create({
      name: 'Bare',
      repository: 'https://github.com/org/docs.git',
    });
    await expect(receive(signed(bare.id, 'push', body, secret))).rejects.toMatchObject({
      code: 'unauthorized',
      message: expect.stringContaining('has no hook secret yet'),
    });
    const forged = receive(signed(project.id, 'push', body, 'not the secret'));
    await expect(forged).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(forged).rejects.toThrow('The GitHub signature is missing or wrong');
    expect(await recorded()).toHaveLength(1);
  });

  it.each([
    ['not JSON', '{"ref":', 'The request body is not valid JSON.'],
    ['not UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), 'The request body is not valid UTF-8.'],
    [
      'a __proto__ key',
      '{"__proto__":{"polluted":true},"ref":"refs/heads/main"}',
      'The request body has a forbidden key (__proto__ or constructor).',
    ],
    [
      'a constructor.prototype key',
      '{"constructor":{"prototype":{"polluted":true}}}',
      'The request body has a forbidden key (__proto__ or constructor).',
    ],
  ])('refuses a signed body that is %s with invalid_json', async (_name, body, words) => {
    await expect(receive(signed(project.id, 'push', body, secret))).rejects.toMatchObject({
      code: 'invalid_json',
      message: words,
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await recorded()).toHaveLength(1);
  });

  it('refuses a signed push that lacks a part of the event with invalid_request', async () => {
    await expect(
      receive(signed(project.id, 'push', '{"ref":"refs/heads/main"}', secret)),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      details: [{ path: expect.stringMatching(/^body/) }],
    });
  });
});
