/**
 * From a code host's signed webhook to a job, as the server wires it: the receiver records the
 * delivery, the dispatcher on the background loop (woken by the receiver's notification) runs the
 * automations it concerns, and a repeated delivery records a `duplicate` run and starts nothing.
 * The project's context repository comes from the store, as `project context add` leaves it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { createHostEventDispatcher, type HostEventDispatcher } from '../../src/background/host-events.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/log.js';
import { lazySecretBox } from '../../src/store/secrets.js';
import { answerMentions } from '../support/automation-inputs.js';
import { openTestStore, type TestStore, testDialects } from '../support/db.js';
import { type GithubDouble, startGithubDouble } from '../support/github-double.js';

describe.each(testDialects())('a code-host hook starts an automation’s job, on %s', (dialect) => {
  let database: TestStore;
  let app: FastifyInstance;
  let dispatcher: HostEventDispatcher;
  let double: GithubDouble;
  let base = '';
  // The dispatcher reads a context repository's change into its mirrors here.
  const dataDir = mkdtempSync(join(tmpdir(), 'agentjobs-hook-to-job-'));
  const config = loadConfig({
    AGENTJOBS_DATA_DIR: dataDir,
    AGENTJOBS_SECRET_KEY: randomBytes(32).toString('hex'),
  });
  const secrets = lazySecretBox(config);
  const logger = createLogger('silent');

  beforeAll(async () => {
    database = await openTestStore(dialect);
    app = await buildApp({ config, store: database.store, logger, secrets });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    dispatcher = createHostEventDispatcher({ store: database.store, logger, config });
    await dispatcher.start();
    double = await startGithubDouble({ token: 'unused-token' });
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await double?.close();
    await app?.close();
    await database?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs the code_change automation once, and notes the repeat as a duplicate', async () => {
    const { store } = database;
    const project = await store.projects.create({
      name: 'Docs',
      repository: 'https://github.com/acme/docs.git',
    });
    await store.contextRepositories.add({
      projectId: project.id,
      name: 'product',
      repository: 'https://github.com/acme/product.git',
      ref: 'main',
      host: 'github',
    });
    const automation = await store.automations.create({
      projectId: project.id,
      name: 'Docs follow the code',
      enabled: true,
      trigger: { type: 'code_change', repository: 'product', branch: 'main', paths: null },
      prompt: 'Update the docs for these commits:\n{{change.commits}}',
      group: false,
      draft: false,
      model: null,
      baseRef: null,
      allowedAuthors: [],
    });
    const secret = (await store.projects.rotateHookSecret(project.id, secrets())) ?? '';
    const url = `${base}/v2/hooks/${project.id}/github`;
    const message = double.hookMessage('acme/product', {
      kind: 'push',
      branch: 'main',
      files: ['src/cli.ts'],
    });

    const first = await double.sendHook(url, message, secret);
    expect(first).toMatchObject({ status: 202, body: { outcome: 'recorded' } });
    // The receiver's notification wakes the dispatcher; nothing here calls it.
    await expect
      .poll(async () => (await store.jobs.list(project.id, { limit: 10 })).jobs.length, { timeout: 20_000 })
      .toBe(1);
    const [job] = (await store.jobs.list(project.id, { limit: 10 })).jobs;
    expect(job?.trigger).toMatchObject({ type: 'code_change', automationId: automation.id });
    expect(job?.prompt).toContain('Update the docs for these commits:');

    const again = await double.sendHook(url, message, secret, { deliveryId: first.deliveryId });
    expect(again).toMatchObject({ status: 202, body: { outcome: 'duplicate' } });
    const runs = (await store.automations.runs(automation.id, { limit: 10 })).runs;
    expect(runs.map((run) => [run.outcome, run.reason])).toEqual([
      ['skipped', 'duplicate'],
      ['created', null],
    ]);
    expect((await store.jobs.list(project.id, { limit: 10 })).jobs).toHaveLength(1);
    await expect
      .poll(async () =>
        (await store.hostEvents.list(project.id)).every((event) => event.processedAt !== null),
      )
      .toBe(true);
  });

  it("answers comments calling the project's own mention, no longer the default one", async () => {
    const { store } = database;
    const project = await store.projects.create({
      name: 'Docs with a bot',
      repository: 'https://github.com/acme/handbook.git',
      mention: '@docs-bot',
    });
    const automation = await store.automations.create(
      // Named: this dispatcher has no code host to ask about the author's access.
      answerMentions(project.id, ['maintainer']),
    );
    const secret = (await store.projects.rotateHookSecret(project.id, secrets())) ?? '';
    const url = `${base}/v2/hooks/${project.id}/github`;
    const comment = (body: string) =>
      double.hookMessage('acme/handbook', {
        kind: 'comment',
        on: 'issue',
        number: 4,
        body,
        author: 'maintainer',
        association: 'MEMBER',
      });
    const processed = async () =>
      (await store.hostEvents.list(project.id)).filter((event) => event.processedAt !== null).length;

    expect(await double.sendHook(url, comment('@agentjobs please fix the typo'), secret)).toMatchObject({
      status: 202,
    });
    await expect.poll(processed, { timeout: 20_000 }).toBe(1);
    expect((await store.automations.runs(automation.id, { limit: 10 })).runs).toEqual([]);

    expect(await double.sendHook(url, comment('@docs-bot please fix the typo'), secret)).toMatchObject({
      status: 202,
    });
    await expect.poll(processed, { timeout: 20_000 }).toBe(2);
    const runs = (await store.automations.runs(automation.id, { limit: 10 })).runs;
    expect(runs.map((run) => [run.outcome, run.reason])).toEqual([['created', null]]);
    const [job] = (await store.jobs.list(project.id, { limit: 10 })).jobs;
    expect(job?.prompt).toContain('maintainer asks:');
    expect(job?.prompt).toContain('@docs-bot please fix the typo');
  });
});
