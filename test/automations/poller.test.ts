/**
 * The poller (docs/automations.md): a branch an automation watches is
 * fetched into the service's mirror, and a head that moved becomes a `poll` push the dispatcher
 * runs, with the diff read from the mirror in the prompt. Real git repositories, real mirrors, the
 * real store on both databases; a remote one served over smart HTTP with a token.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHostEventDispatcher, type HostEventDispatcher } from '../../src/background/host-events.js';
import { createPoller, type Poller } from '../../src/background/poller.js';
import { watchedRepositories } from '../../src/background/watched-repositories.js';
import { loadConfig } from '../../src/config/config.js';
import type { AutomationTrigger } from '../../src/domain/automation.js';
import type { Project } from '../../src/domain/project.js';
import { createLogger } from '../../src/log.js';
import { lazySecretBox } from '../../src/store/secrets.js';
import { automationInput, PRODUCT_MAIN } from '../support/automation-inputs.js';
import { testDialects, useTestStore } from '../support/db.js';
import { startGitHttpServer } from '../support/git-http.js';
import { waitFor } from '../support/worker.js';
import { git, write } from '../support/workspace-fixture.js';

const PROMPT = 'Commits:\n{{change.commits}}\nFiles:\n{{change.files}}\nDiff:\n{{change.diff}}';

describe.each(testDialects())('the poller, on %s', (dialect) => {
  const database = useTestStore(dialect);
  let root: string;
  let poller: Poller;
  let dispatcher: HostEventDispatcher;
  const lines: string[] = [];
  let config: ReturnType<typeof loadConfig>;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'agentjobs-poller-'));
    config = loadConfig({
      AGENTJOBS_DATA_DIR: join(root, 'data'),
      AGENTJOBS_SECRET_KEY: randomBytes(32).toString('hex'),
    });
    // Every log line, to show no token reaches one.
    const logger = createLogger('debug', { write: (line: string) => void lines.push(line) });
    const repositories = watchedRepositories({ store: database.store, config });
    poller = createPoller({ store: database.store, logger, config, repositories });
    dispatcher = createHostEventDispatcher({ store: database.store, logger, config, repositories });
    await poller.start();
    await dispatcher.start();
  });
  afterAll(async () => {
    await poller?.stop();
    await dispatcher?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  /** A product repository on disk with one commit on `main`. */
  async function productRepository(name: string): Promise<string> {
    const dir = join(root, name);
    mkdirSync(dir);
    await git(dir, 'init', '--quiet', '--initial-branch=main');
    write(dir, 'src/cli.ts', "export const flags = ['--verbose'];\n");
    await git(dir, 'add', '.');
    await git(dir, 'commit', '--quiet', '-m', 'First version');
    return dir;
  }

  async function commit(dir: string, path: string, content: string, message: string): Promise<string> {
    write(dir, path, content);
    await git(dir, 'add', '.');
    await git(dir, 'commit', '--quiet', '-m', message);
    return git(dir, 'rev-parse', 'HEAD');
  }

  async function watching(repository: string, trigger: Partial<AutomationTrigger> = {}) {
    const { store } = database;
    const project = await store.projects.create({ name: 'Docs', repository: join(root, 'unused-docs') });
    await store.contextRepositories.add({
      projectId: project.id,
      name: 'product',
      repository,
      ref: 'main',
      host: 'local',
    });
    const automation = await store.automations.create(
      automationInput(project.id, {
        name: 'Docs from code',
        trigger: { ...PRODUCT_MAIN, ...trigger } as AutomationTrigger,
        prompt: PROMPT,
      }),
    );
    return { project, automation };
  }

  const jobsOf = async (project: Project) => (await database.store.jobs.list(project.id, { limit: 50 })).jobs;
  const runsOf = async (automationId: string) =>
    (await database.store.automations.runs(automationId, { limit: 50 })).runs.reverse();
  async function pollAndDispatch() {
    await poller.wake();
    await dispatcher.wake();
  }

  it('starts nothing at its first look, then makes a job of a new commit with its diff', async () => {
    const product = await productRepository('product-a');
    const { project, automation } = await watching(product);

    await pollAndDispatch();
    expect(await jobsOf(project)).toEqual([]);
    expect(await database.store.hostEvents.count(project.id)).toBe(0);

    const head = await commit(
      product,
      'src/cli.ts',
      "export const flags = ['--verbose', '--dry-run'];\n",
      'Add the --dry-run flag',
    );
    await pollAndDispatch();
    const [event] = await database.store.hostEvents.list(project.id);
    expect(event).toMatchObject({
      host: 'poll',
      event: {
        kind: 'push',
        after: head,
        commits: [{ id: head, message: 'Add the --dry-run flag', files: ['src/cli.ts'] }],
      },
    });
    const jobs = await jobsOf(project);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.prompt).toContain('Add the --dry-run flag');
    expect(jobs[0]?.prompt).toContain("+export const flags = ['--verbose', '--dry-run'];");
    expect(jobs[0]?.trigger).toEqual({ type: 'code_change', automationId: automation.id, source: head });

    // Nothing moved: nothing recorded, nothing run.
    await pollAndDispatch();
    expect(await database.store.hostEvents.count(project.id)).toBe(1);
    expect((await runsOf(automation.id)).map((run) => run.outcome)).toEqual(['created']);
  });

  it('hears a commit to a local repository within seconds by default, with no wake', async () => {
    expect(config.automations.localPollMs).toBe(3000);
    const product = await productRepository('product-local');
    const { project } = await watching(product);
    await pollAndDispatch();
    const head = await commit(product, 'src/cli.ts', "export const flags = ['-q'];\n", 'Add -q');
    // No wake: the poller's own schedule for a local repository finds it.
    const found = await waitFor(
      () => database.store.hostEvents.list(project.id),
      (events) => events.length > 0,
      { timeoutMs: 20_000, everyMs: 100 },
    );
    expect(found[0]).toMatchObject({ host: 'poll', event: { kind: 'push', after: head } });
  });

  it('makes one run of a head that a hook reported and the poll found too', async () => {
    const product = await productRepository('product-b');
    const { project, automation } = await watching(product);
    await pollAndDispatch();
    const before = await git(product, 'rev-parse', 'HEAD');
    const head = await commit(product, 'docs.txt', 'words\n', 'Reword');
    await database.store.hostEvents.record({
      projectId: project.id,
      host: 'github',
      deliveryId: 'hook-1',
      event: {
        kind: 'push',
        repository: { kind: 'context', name: 'product' },
        branch: 'main',
        before,
        after: head,
        commits: [],
      },
    });
    await pollAndDispatch();
    expect(await jobsOf(project)).toHaveLength(1);
    expect((await runsOf(automation.id)).map((run) => [run.outcome, run.reason])).toEqual([
      ['created', null],
      ['skipped', 'duplicate'],
    ]);
    // The hook named no commits: the ones read from the mirror stand for them.
    expect((await jobsOf(project))[0]?.prompt).toContain('Reword');
  });

  it('forgets the head of an automation disabled and enabled again: commits in between start nothing', async () => {
    const product = await productRepository('product-c');
    const { project, automation } = await watching(product);
    await pollAndDispatch();
    await database.store.automations.update(project.id, automation.id, { enabled: false });
    await commit(product, 'a.txt', 'a\n', 'While disabled');
    await pollAndDispatch();
    await database.store.automations.update(project.id, automation.id, { enabled: true });
    await pollAndDispatch();
    expect(await jobsOf(project)).toEqual([]);
    await commit(product, 'b.txt', 'b\n', 'After enabling');
    await pollAndDispatch();
    const jobs = await jobsOf(project);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.prompt).toContain('After enabling');
    expect(jobs[0]?.prompt).not.toContain('While disabled');
  });

  it('fetches a remote repository with its token through askpass, never in a URL or a log line', async () => {
    const token = `poll-token-${randomBytes(12).toString('hex')}`;
    const served = join(root, 'served');
    const product = await productRepository('product-d');
    await git(root, 'clone', '--quiet', '--bare', product, join(served, 'acme', 'product.git'));
    const server = await startGitHttpServer({ root: served, token });
    try {
      const { store } = database;
      const project = await store.projects.create({ name: 'Docs', repository: join(root, 'unused-docs') });
      await store.contextRepositories.add(
        {
          projectId: project.id,
          name: 'product',
          repository: `${server.url}/acme/product.git`,
          ref: 'main',
          host: 'github',
        },
        { token, secrets: lazySecretBox(config)() },
      );
      await store.automations.create(
        automationInput(project.id, { name: 'Remote', trigger: PRODUCT_MAIN, prompt: PROMPT }),
      );
      await pollAndDispatch();
      const head = await commit(product, 'src/remote.ts', 'export const remote = 1;\n', 'Remote change');
      await git(product, 'push', '--quiet', join(served, 'acme', 'product.git'), 'main');
      await pollAndDispatch();
      const jobs = await jobsOf(project);
      expect(jobs).toHaveLength(1);
      expect(jobs[0]?.trigger?.source).toBe(head);
      expect(server.requests.some((request) => request.user !== null && request.status === 200)).toBe(true);
      const mirrorConfig = readFileSync(
        join(root, 'data', 'mirrors', 'context', project.id, 'product.git', 'config'),
        'utf8',
      );
      expect(mirrorConfig).not.toContain(token);
      expect(lines.join('\n')).not.toContain(token);
      expect(JSON.stringify(await store.hostEvents.list(project.id))).not.toContain(token);
    } finally {
      await server.close();
    }
  });
});
