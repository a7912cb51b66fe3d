/**
 * What a pull request quotes of an automation's prompt (issue 33, item 7): a change in a context
 * repository (possibly private: the product's source) is rendered into the job's prompt for the
 * agent, but the content repository's pull request (possibly public) quotes the template without
 * it, after a line naming what triggered the run; a project that chooses to quote it all does.
 * The whole run: a code host's event, the automation, the worker with the local code host, a real
 * database on each dialect.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { quotedPrompt } from '../../src/domain/automation-prompt.js';
import type { Job } from '../../src/domain/job.js';
import { type HostEventDeps, processHostEvent } from '../../src/operations/host-events.js';
import { automationInput, PRODUCT_MAIN } from '../support/automation-inputs.js';
import { testDialects } from '../support/db.js';
import { useFakeWorker } from '../support/fake-worker.js';
import { partsOf } from '../support/use-fixture.js';
import { fakeAgent, git, waitFor } from '../support/worker.js';

/** Text only the product's private repository holds. */
const PRIVATE = 'PRIVATE-PRICING-RULE-7f3a';
const TEMPLATE =
  'Keep the docs true to the product.\n\nCommits:\n{{change.commits}}\n\nDiff:\n{{change.diff}}';

describe.each(testDialects())('pull request quotes on %s', (dialect) => {
  let deps: HostEventDeps;
  let pushes = 0;
  const agent = fakeAgent(async ({ workspace }) => {
    await workspace.writeFile(`docs/pricing-${pushes}.md`, '# Pricing\n\nSee the product.\n');
    return { summary: 'Document the pricing change' };
  });
  const bench = useFakeWorker({ name: 'pr-quotes', dialect, agent });
  const { t, project } = partsOf(bench, 't', 'project');

  beforeAll(async () => {
    await t.store.automations.create(
      automationInput(project.id, {
        name: 'Docs follow the product',
        trigger: PRODUCT_MAIN,
        prompt: TEMPLATE,
        model: 'openai:fake',
      }),
    );
    const { config } = bench;
    deps = {
      store: t.store,
      config,
      automations: config.automations,
      // The product's mirror, as the dispatcher reads it: a diff with the private rule in it.
      readChange: async () => ({
        diff: `diff --git a/src/pricing.ts b/src/pricing.ts\n+export const rule = '${PRIVATE}';\n`,
        files: ['src/pricing.ts'],
      }),
    };
  });

  /** A push of one commit to the product's `main`, through the automation to a finished job. */
  const pushToProduct = async (): Promise<Job> => {
    pushes += 1;
    const before = String(pushes - 1).padStart(40, 'b');
    const after = String(pushes).padStart(40, 'c');
    const { runs } = await processHostEvent(deps, {
      id: `event-${pushes}`,
      projectId: project.id,
      host: 'github',
      deliveryId: `delivery-${pushes}`,
      event: {
        kind: 'push',
        repository: { kind: 'context', name: 'product' },
        branch: 'main',
        before,
        after,
        commits: [{ id: after, message: `Tune ${PRIVATE}`, files: ['src/pricing.ts'] }],
      },
      receivedAt: new Date().toISOString(),
    });
    expect(runs).toEqual([expect.objectContaining({ outcome: 'created' })]);
    const job = await waitFor(
      () => t.store.jobs.get(project.id, runs[0]?.jobId ?? ''),
      (current) => current?.status !== 'active',
    );
    expect(job).toMatchObject({ status: 'completed', error: null });
    return job as Job;
  };
  const pullRequestOf = async (job: Job) => {
    const number = Number(/\/pulls\/(\d+)$/.exec(job.prLink ?? '')?.[1]);
    return t.store.pullRequests.get(project.id, number);
  };

  it('keeps a context repository’s diff and commits out of the pull request by default', async () => {
    const job = await pushToProduct();
    // The agent had the whole change…
    expect(job.prompt).toContain(PRIVATE);
    expect(agent.calls.at(-1)?.prompts.join('\n')).toContain(PRIVATE);
    // …the pull request, its title and the commit on the docs branch have none of it.
    const pull = await pullRequestOf(job);
    expect(pull?.body).toContain('Keep the docs true to the product.');
    expect(pull?.body).toMatch(/Triggered by 1 commit in `product` \([0-9a-f]{12}…[0-9a-f]{12}\)\./);
    expect(pull?.body).toContain('(not quoted: from the context repository `product`)');
    expect(pull?.body).not.toContain(PRIVATE);
    expect(pull?.title).not.toContain(PRIVATE);
    expect(git(bench.repo, 'log', '-1', '--format=%B', job.source.ref)).not.toContain(PRIVATE);
  });

  it('quotes it all when the project says so', async () => {
    await t.store.projects.update(project.id, { quoteContext: true });
    const job = await pushToProduct();
    const pull = await pullRequestOf(job);
    expect(pull?.body).toContain(PRIVATE);
    expect(pull?.body).not.toContain('not quoted');
    await t.store.projects.update(project.id, { quoteContext: false });
  });
});

describe('the quotable prompt', () => {
  const options = { diffChars: 1000 };

  it('is the prompt itself (null) when nothing came from a context repository', () => {
    expect(
      quotedPrompt('{{comment.body}}', { comment: { body: 'hi', author: 'a', url: 'https://x/1' } }, options),
    ).toBeNull();
  });

  it('names a context repository’s comment instead of quoting it', () => {
    const quoted = quotedPrompt(
      'Asked by {{comment.author}}:\n{{comment.body}}',
      {
        comment: {
          body: `Why does ${PRIVATE} apply?`,
          author: 'lead',
          url: 'https://git.example/acme/product/pull/5',
        },
        contextRepository: 'product',
      },
      options,
    );
    expect(quoted).toBe(
      'Triggered by a comment by lead in `product` (https://git.example/acme/product/pull/5).\n\nAsked by lead:\n(not quoted: from the context repository `product`)',
    );
  });
});
