/**
 * The code-host webhook receiver over real HTTP (docs/api.md#code-host-webhooks): the
 * GitHub, GitLab and Gitea doubles send their hooks, signed as the hosts sign them, to the app
 * listening on loopback, on each database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOOK_BODY_LIMIT_BYTES } from '../../src/api/routes/hooks.js';
import type { HookHost } from '../../src/domain/hook-secret.js';
import type { Project } from '../../src/domain/project.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';
import { startGiteaDouble } from '../support/gitea-double.js';
import { startGithubDouble } from '../support/github-double.js';
import { startGitlabDouble } from '../support/gitlab-double.js';
import type { HookSender } from '../support/host-hooks.js';

const WEB: Record<HookHost, string> = {
  github: 'https://github.com',
  gitlab: 'https://gitlab.example.com',
  gitea: 'https://gitea.example.com',
};

describe.each(testDialects())('the code-host webhook receiver, on %s', (dialect) => {
  let t: TestApp;
  let base = '';
  const doubles = {} as Record<HookHost, HookSender & { close(): Promise<void> }>;
  /** Every secret made in this file: none may reach a log line. */
  const secretsMade: string[] = [];

  beforeAll(async () => {
    t = await startTestApp(dialect);
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    doubles.github = await startGithubDouble({ token: 'unused-token' });
    doubles.gitlab = await startGitlabDouble({ token: 'unused-token' });
    doubles.gitea = await startGiteaDouble({ token: 'unused-token' });
  });
  afterAll(async () => {
    for (const double of Object.values(doubles)) await double?.close();
    await t?.close();
  });

  /** A project on `host`'s `org/docs`, with a hook secret. */
  async function projectOn(host: HookHost, repository = `${WEB[host]}/org/docs.git`) {
    const project = await t.store.projects.create({ name: 'Docs', repository, host });
    const secret = await t.store.projects.rotateHookSecret(project.id, t.secrets());
    if (!secret) throw new Error('no secret');
    secretsMade.push(secret);
    return { project, secret, url: `${base}/v2/hooks/${project.id}/${host}` };
  }
  const rows = (project: Project) => t.store.hostEvents.list(project.id);

  describe.each(['github', 'gitlab', 'gitea'] as const)('from %s', (host) => {
    const double = () => doubles[host];

    it('records a push, a merge and a comment, each as the one event shape, and answers 202', async () => {
      const { project, secret, url } = await projectOn(host);
      const push = await double().sendHook(
        url,
        double().hookMessage('org/docs', { kind: 'push', files: ['src/cli.ts'] }),
        secret,
      );
      expect(push.status).toBe(202);
      expect(push.body).toMatchObject({ outcome: 'recorded', duplicate: false, reason: null });
      const merged = await double().sendHook(
        url,
        double().hookMessage('org/docs', { kind: 'merged', number: 12 }),
        secret,
      );
      expect(merged.body.outcome).toBe('recorded');
      const comment = await double().sendHook(
        url,
        double().hookMessage('org/docs', { kind: 'comment', number: 3, author: 'reviewer' }),
        secret,
      );
      expect(comment.body.outcome).toBe('recorded');

      for (const answer of [push, merged, comment]) expect(JSON.stringify(answer.body)).not.toContain(secret);
      const recorded = (await rows(project)).reverse();
      expect(recorded.map((row) => row.deliveryId)).toEqual([
        push.deliveryId,
        merged.deliveryId,
        comment.deliveryId,
      ]);
      expect(recorded.every((row) => row.host === host && row.processedAt === null)).toBe(true);
      expect(recorded[0]?.id).toBe(push.body.eventId);
      expect(recorded[0]?.event).toEqual({
        kind: 'push',
        repository: { kind: 'content' },
        branch: 'main',
        before: 'a'.repeat(40),
        after: 'b'.repeat(40),
        commits: [{ id: 'b'.repeat(40), message: 'Add --verbose to the CLI', files: ['src/cli.ts'] }],
      });
      expect(recorded[1]?.event).toMatchObject({
        kind: 'pull_request_merged',
        repository: { kind: 'content' },
        branch: 'main',
        number: 12,
        title: 'Add --verbose',
        body: 'The CLI gains a --verbose flag.',
        mergeCommit: 'b'.repeat(40),
      });
      expect(recorded[2]?.event).toMatchObject({
        kind: 'comment',
        repository: { kind: 'content' },
        target: { type: 'pull_request', number: 3, title: 'Docs for --verbose' },
        body: '@agentjobs please also update the quickstart',
        author: 'reviewer',
      });
      // The payload's word on the author's access (GitHub's author_association) is not kept.
      expect(recorded[2]?.event).not.toHaveProperty('authorCanWrite');
    });

    it('refuses a wrong or a missing signature with 401 and records nothing', async () => {
      const { project, secret, url } = await projectOn(host);
      const message = double().hookMessage('org/docs', { kind: 'push' });
      const wrong = await double().sendHook(url, message, secret, { signature: { secret: `${secret}x` } });
      expect(wrong.status).toBe(401);
      expect(wrong.body.code).toBe('unauthorized');
      expect(JSON.stringify(wrong.body)).not.toContain(secret);
      const missing = await double().sendHook(url, message, secret, { signature: 'missing' });
      expect(missing.status).toBe(401);
      expect(await rows(project)).toEqual([]);
    });

    it('answers a repeated delivery 202 as a duplicate and keeps one row', async () => {
      const { project, secret, url } = await projectOn(host);
      const message = double().hookMessage('org/docs', { kind: 'push' });
      const first = await double().sendHook(url, message, secret);
      const again = await double().sendHook(url, message, secret, { deliveryId: first.deliveryId });
      expect(again.status).toBe(202);
      expect(again.body).toMatchObject({
        outcome: 'duplicate',
        duplicate: true,
        eventId: first.body.eventId,
      });
      expect(await rows(project)).toHaveLength(1);
    });

    it('ignores an event it does not read, and a repository that is not the project’s', async () => {
      const { project, secret, url } = await projectOn(host);
      const other = await double().sendHook(url, double().hookMessage('org/docs', { kind: 'other' }), secret);
      expect(other.status).toBe(202);
      expect(other.body).toMatchObject({ outcome: 'ignored', duplicate: false, eventId: null });
      const elsewhere = await double().sendHook(
        url,
        double().hookMessage('org/website', { kind: 'push' }),
        secret,
      );
      expect(elsewhere.status).toBe(202);
      expect(elsewhere.body.outcome).toBe('ignored');
      expect(String(elsewhere.body.reason)).toContain('org/website');
      expect(await rows(project)).toEqual([]);
    });

    it('answers 400, not 401, to a correctly signed body that is not UTF-8; 401 when the signature is wrong', async () => {
      const { project, secret, url } = await projectOn(host);
      const message = double().hookMessage('org/docs', { kind: 'push' });
      // Latin-1 bytes where UTF-8 was due: the host signed (or, for GitLab, sent its token with) what it sent.
      const latin1 = Buffer.from('{"ref": "refs/heads/caf\xe9"}', 'latin1');
      const signed = await double().sendHook(url, message, secret, { rawBody: latin1 });
      expect(signed.status).toBe(400);
      expect(signed.body).toMatchObject({
        code: 'invalid_json',
        error: 'The request body is not valid UTF-8.',
      });
      const forged = await double().sendHook(url, message, secret, {
        rawBody: latin1,
        signature: { secret: 'not-the-secret' },
      });
      expect(forged.status).toBe(401);
      expect(await rows(project)).toEqual([]);
    });

    it('refuses malformed JSON and a payload without the parts it reads with 400, an oversized body with 413', async () => {
      const { project, secret, url } = await projectOn(host);
      const message = double().hookMessage('org/docs', { kind: 'push' });
      const broken = await double().sendHook(url, message, secret, { rawBody: '{"ref": "refs/heads/main",' });
      expect(broken.status).toBe(400);
      expect(broken.body.code).toBe('invalid_json');
      const partial = await double().sendHook(url, message, secret, {
        rawBody: JSON.stringify({ ref: 'refs/heads/main' }),
      });
      expect(partial.status).toBe(400);
      expect(partial.body.code).toBe('invalid_request');
      expect(String(partial.body.error)).toMatch(
        /payload is not one this receiver reads: (after|project|repository)/,
      );
      expect(partial.body.details).toEqual([
        expect.objectContaining({ path: expect.stringMatching(/^body\./) }),
      ]);
      const huge = JSON.stringify({
        ...(message.payload as object),
        padding: 'x'.repeat(HOOK_BODY_LIMIT_BYTES),
      });
      const oversized = await double().sendHook(url, message, secret, { rawBody: huge });
      expect(oversized.status).toBe(413);
      expect(await rows(project)).toEqual([]);
    });

    it('takes a delivery that is just under the limit', async () => {
      const { project, secret, url } = await projectOn(host);
      const message = double().hookMessage('org/docs', { kind: 'push' });
      const body = JSON.stringify({ ...(message.payload as object), padding: '' });
      const padded = body.replace(
        '"padding":""',
        `"padding":"${'x'.repeat(HOOK_BODY_LIMIT_BYTES - body.length)}"`,
      );
      expect(Buffer.byteLength(padded)).toBe(HOOK_BODY_LIMIT_BYTES);
      const sent = await double().sendHook(url, message, secret, { rawBody: padded });
      expect(sent.status).toBe(202);
      expect(await rows(project)).toHaveLength(1);
    });
  });

  it('matches the content repository by its ssh URL or its full name, whatever the case', async () => {
    const bySsh = await projectOn('github', 'git@GitHub.com:Org/Docs.git');
    const sent = await doubles.github.sendHook(
      bySsh.url,
      doubles.github.hookMessage('org/docs', { kind: 'push' }),
      bySsh.secret,
    );
    expect(sent.body.outcome).toBe('recorded');
    // Reached under another host name (an instance behind a proxy): the full name still matches.
    const byName = await projectOn('gitlab', 'https://git.internal.example/org/docs.git');
    const named = await doubles.gitlab.sendHook(
      byName.url,
      doubles.gitlab.hookMessage('org/docs', { kind: 'push' }),
      byName.secret,
    );
    expect(named.body.outcome).toBe('recorded');
  });

  it('reads issue and review comments, and keeps no author association (it proves no write access)', async () => {
    const { project, secret, url } = await projectOn('github');
    const github = doubles.github;
    await github.sendHook(
      url,
      github.hookMessage('org/docs', { kind: 'comment', on: 'issue', association: 'CONTRIBUTOR' }),
      secret,
    );
    await github.sendHook(
      url,
      github.hookMessage('org/docs', { kind: 'review_comment', association: 'MEMBER' }),
      secret,
    );
    const [review, issue] = await rows(project);
    expect(issue?.event).toMatchObject({ kind: 'comment', target: { type: 'issue' } });
    expect(review?.event).toMatchObject({ kind: 'comment', target: { type: 'pull_request' } });
    expect(review?.event).not.toHaveProperty('authorCanWrite');
  });

  it('answers 401 with the way forward while a project has no hook secret, 404 for no project', async () => {
    const project = await t.store.projects.create({ name: 'Docs', repository: `${WEB.github}/org/docs.git` });
    const message = doubles.github.hookMessage('org/docs', { kind: 'push' });
    const none = await doubles.github.sendHook(`${base}/v2/hooks/${project.id}/github`, message, 'anything');
    expect(none.status).toBe(401);
    expect(String(none.body.error)).toContain(`agentjobs project hook-secret ${project.id}`);
    const missing = await doubles.github.sendHook(
      `${base}/v2/hooks/01JDQ2J7T0V5Y8G1ZK3M4N6P7R/github`,
      message,
      'anything',
    );
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('project_not_found');
    const unknownHost = await fetch(`${base}/v2/hooks/${project.id}/bitbucket`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(unknownHost.status).toBe(404);
    expect(await rows(project)).toEqual([]);
  });

  it('stops taking the old secret the moment it is rotated', async () => {
    const { project, secret: old, url } = await projectOn('gitea');
    const fresh = await t.store.projects.rotateHookSecret(project.id, t.secrets());
    if (!fresh) throw new Error('no secret');
    secretsMade.push(fresh);
    expect(fresh).not.toBe(old);
    const message = doubles.gitea.hookMessage('org/docs', { kind: 'push' });
    expect((await doubles.gitea.sendHook(url, message, old)).status).toBe(401);
    expect((await doubles.gitea.sendHook(url, message, fresh)).status).toBe(202);
    expect(await rows(project)).toHaveLength(1);
  });

  // 20 deliveries, all in flight at once; the load run of 2,000 is `npm run bench:hooks`.
  it('absorbs a flood of deliveries, each id sent twice at once, with one row per delivery id', async () => {
    const { project, secret, url } = await projectOn('github');
    const message = doubles.github.hookMessage('org/docs', { kind: 'push' });
    const ids = Array.from({ length: 10 }, (_, index) => `flood-${index}`);
    // Each id twice, the repeats close together so that some arrive at once.
    const queue = ids.flatMap((id) => [id, id]);
    const statuses = new Map<number, number>();
    const outcomes = new Map<string, number>();
    const worker = async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        const sent = await doubles.github.sendHook(url, message, secret, { deliveryId: id });
        statuses.set(sent.status, (statuses.get(sent.status) ?? 0) + 1);
        outcomes.set(String(sent.body.outcome), (outcomes.get(String(sent.body.outcome)) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 20 }, worker));
    expect(Object.fromEntries(statuses)).toEqual({ 202: 20 });
    expect(Object.fromEntries(outcomes)).toEqual({ recorded: 10, duplicate: 10 });
    expect(await t.store.hostEvents.count(project.id)).toBe(10);
    const listed = await t.store.hostEvents.list(project.id, 20);
    expect(new Set(listed.map((row) => row.deliveryId)).size).toBe(10);
  });

  it('never writes a hook secret into a log line', () => {
    expect(secretsMade.length).toBeGreaterThan(10);
    const logs = t.logs.join('\n');
    for (const secret of secretsMade) expect(logs).not.toContain(secret);
    expect(logs).toContain('code-host hook');
  });
});
